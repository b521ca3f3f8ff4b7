// SPDX-License-Identifier: Apache-2.0
// One acquisition contending for a lock node, as Curator's lock recipes do: create an
// EPHEMERAL_SEQUENTIAL contender (protected: named with a fresh uuid, so a create whose reply
// was lost is found again), list the contenders, and either hold the lock or wait behind the
// one contender that must go first, watching only that one. If it is already gone, look again
// and keep our place. A session that ends takes our node with it: start over in the next.
// Unlike Curator, the first listing goes right behind the create, without waiting for its
// reply: an uncontended acquisition takes one round trip. A waiter sleeps from sending its
// watch until the listing after its predecessor's release is in: the completion thread sends
// that listing as the watch fires, and wakes the waiter for the watch's reply only if it
// failed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "backends/backend.h"
#include "backends/zookeeper/context.h"
#include "backends/zookeeper/holds.h"
#include "backends/zookeeper/own_node.h"
#include "backends/zookeeper/requests.h"
#include "backends/zookeeper/wakeup.h"
#include "core/step_deadline.h"

namespace distlock::detail::zookeeper {

struct Won {
  HeldNode node;
  // When the request that found the lock ours was sent.
  SteadyClock::time_point sent_at;
};

// What a listing (of a lock's contenders, or of a semaphore's leases) says to do next.
enum class Next {
  won,         // ours: Judged::won says what we hold
  wait,        // wait for a change: behind Judged::watch, for a lock
  list_again,  // the listing failed but the session lives on: ask again
  start_over,  // our node is gone (with its session, or deleted): a new round
  timed_out,   // not ours, and the deadline has passed
};

struct Judged {
  Next next = Next::start_over;
  std::optional<Won> won;
  std::string watch;  // for a lock's wait: the contender to wait behind

  static Judged to(Next next) { return {next, std::nullopt, {}}; }
  static Judged winning(Won won) { return {Next::won, std::move(won), {}}; }
  static Judged waiting_behind(std::string watch) {
    return {Next::wait, std::nullopt, std::move(watch)};
  }
};

// What a listing's return code says before its children are judged: nullopt when it came (ZOK,
// or ZNONODE: nothing is listed); start over when the session is gone (with `own`'s node), or
// when trouble on the connection brought another session; list again when the same one is
// back (`same_session_again` asks). Any other code is a failure the caller throws.
std::optional<Next> listing_trouble(int rc, OwnNode& own,
                                    const std::function<bool()>& same_session_again);

// A wait behind one contender: the watch registered with the session, the listing its release
// sends ahead, and the code of the request that set the watch (ZOK: set, the wait is on).
struct WaitBehind {
  std::string watched;  // the contender's name
  std::shared_ptr<Wakeup> wakeup;
  std::shared_ptr<ChildrenReply> relisted;
  std::uint64_t watch_id = 0;
  int sent = ZOK;
};

// One acquisition's contention for a lock node: run() waits on the calling thread; the steps
// below it are public for the acquisition that waits without a thread (async_contention.h),
// which takes the same steps between watch callbacks and timers.
class Contention {
 public:
  struct Entered {
    std::string path;
    Stat stat{};
    SteadyClock::time_point sent_at;
    // The contenders as listed right behind the create; none after a recovered create.
    std::optional<ChildrenReply> listed;
  };

  // `write_hold`: the write lock this owner holds on the path, for a read acquisition (which
  // then sorts with the write node and is granted at once, as in Curator). `deadline`: the
  // request's, as the acquisition that began it sees it (a semaphore's mutex contends in the
  // semaphore's wait).
  Contention(const ZkContext& context, const AcquireRequest& request, std::string path,
             std::optional<HeldNode> write_hold, const AcquisitionDeadline& deadline);

  // The lock by the request's deadline, or nullopt. Throws BackendUnavailable when the
  // server cannot be reached within connect_timeout, ConfigError when it refuses access.
  std::optional<Won> run();
  // Whether it found the lock taken (counted once in stats.contended).
  bool contended() const { return contended_; }
  // The acquisition's deadline, as its steps see it.
  const AcquisitionDeadline& deadline() const { return deadline_; }

  // A round's ready session (waiting up to connect_timeout), in which a read by the write
  // holder sorts with its write node.
  std::shared_ptr<Session> begin_round();
  // Creates our contender node; nullopt when the session ended first.
  std::optional<Entered> enter(const std::shared_ptr<Session>& session);
  // A read by the write holder: granted with the write node, at once (nullopt otherwise).
  std::optional<Won> downgraded(const std::shared_ptr<Session>& session, OwnNode& own,
                                const Entered& entered) const;
  // What a listing of the contenders says, our node being `entered` (kept when won, known
  // gone when starting over).
  Judged judge_listing(const std::shared_ptr<Session>& session, OwnNode& own,
                       const Entered& entered, const ChildrenReply& listed);
  // Lists the contenders again.
  ChildrenReply list(const std::shared_ptr<Session>& session) const;
  // Watches `watch`; when it goes, the completion thread lists the contenders at once, and the
  // listing's reply notifies the wakeup (and calls `on_woken`). The watch stays registered
  // with the session until the caller removes it.
  WaitBehind wait_behind(const std::shared_ptr<Session>& session, const std::string& watch,
                         Wakeup::OnWoken on_woken = {}) const;
  // After a wait that ended with `cause` (`failure`: the watch's code; `waited`: whether the
  // wait was on): list_again, with `next` set to the listing sent ahead when there is one, or
  // start_over.
  Next after_wait(const std::shared_ptr<Session>& session, OwnNode& own, const WaitBehind& wait,
                  Wakeup::Cause cause, int failure, bool waited,
                  std::optional<ChildrenReply>& next);

 private:
  enum class Outcome { won, timed_out, session_ended };

  // After a create that may or may not have been applied: our node, if it is there and
  // belongs to this session. `session_ended` is set when the session ended first.
  std::optional<Entered> recover(const std::shared_ptr<Session>& session, const std::string& uuid,
                                 bool& session_ended);
  // Creates the container nodes down to the lock node.
  void make_parents(const std::shared_ptr<Session>& session);
  Outcome contend(const std::shared_ptr<Session>& session, OwnNode& own, Entered& entered,
                  std::optional<Won>& won);
  // After a connection problem: true when the same session is ready again, false when
  // another one is; throws when none is ready in time (ready_session()).
  bool same_session_again(const std::shared_ptr<Session>& session) const;
  // A ready session: waiting while the outage policy lets in run(), within connect_timeout in
  // the asynchronous steps, which must not hold the executor's thread.
  std::shared_ptr<Session> ready_session() const;

  [[noreturn]] void fail(int rc, const std::string& doing) const;

  const ZkContext& context_;
  const AcquireRequest& request_;
  const AcquisitionDeadline deadline_;
  const std::string path_;
  const std::optional<HeldNode> write_hold_;
  std::optional<HeldNode> downgrade_;  // write_hold_, when in the session at hand
  bool contended_ = false;
  // Engaged by run(): a blocking acquisition rides an outage through (core/ride_through.h).
  mutable std::optional<RideThrough> outage_;
};

}  // namespace distlock::detail::zookeeper
