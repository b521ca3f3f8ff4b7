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

#include <memory>
#include <optional>
#include <string>

#include "backends/backend.h"
#include "backends/zookeeper/context.h"
#include "backends/zookeeper/holds.h"
#include "backends/zookeeper/own_node.h"

namespace distlock::detail::zookeeper {

struct Won {
  HeldNode node;
  // When the request that found the lock ours was sent.
  SteadyClock::time_point sent_at;
};

class Contention {
 public:
  // `write_hold`: the write lock this owner holds on the path, for a read acquisition (which
  // then sorts with the write node and is granted at once, as in Curator).
  Contention(const ZkContext& context, const AcquireRequest& request, std::string path,
             std::optional<HeldNode> write_hold);

  // The lock by the request's deadline, or nullopt. Throws BackendUnavailable when the
  // server cannot be reached within connect_timeout, ConfigError when it refuses access.
  std::optional<Won> run();
  // Whether it found the lock taken (counted once in stats.contended).
  bool contended() const { return contended_; }

 private:
  struct Entered {
    std::string path;
    Stat stat{};
    SteadyClock::time_point sent_at;
    // The contenders as listed right behind the create; none after a recovered create.
    std::optional<ChildrenReply> listed;
  };
  enum class Outcome { won, timed_out, session_ended };

  // Creates our contender node; nullopt when the session ended first.
  std::optional<Entered> enter(const std::shared_ptr<Session>& session);
  // After a create that may or may not have been applied: our node, if it is there and
  // belongs to this session. `session_ended` is set when the session ended first.
  std::optional<Entered> recover(const std::shared_ptr<Session>& session, const std::string& uuid,
                                 bool& session_ended);
  // Creates the container nodes down to the lock node.
  void make_parents(const std::shared_ptr<Session>& session);
  Outcome contend(const std::shared_ptr<Session>& session, OwnNode& own, Entered& entered,
                  std::optional<Won>& won);
  // After a connection problem: true when the same session is ready again, false when
  // another one is; throws when none is within connect_timeout.
  bool same_session_again(const std::shared_ptr<Session>& session) const;

  [[noreturn]] void fail(int rc, const std::string& doing) const;

  const ZkContext& context_;
  const AcquireRequest& request_;
  const std::string path_;
  const std::optional<HeldNode> write_hold_;
  std::optional<HeldNode> downgrade_;  // write_hold_, when in the session at hand
  bool contended_ = false;
};

}  // namespace distlock::detail::zookeeper
