// SPDX-License-Identifier: Apache-2.0
// One acquisition of a semaphore's permit, taken as Apache Curator's InterProcessSemaphoreV2
// takes a lease, so that Curator and distlock processes on one path share one semaphore:
//
//   <lock path>/locks    an InterProcessMutex (a Contention of its own): one contender at a
//                        time adds its lease and, while there are too many, waits holding it
//   <lock path>/leases   one EPHEMERAL_SEQUENTIAL node per lease, "_c_<uuid>-lease-<seq>"; a
//                        lease is granted once the leases children number at most N, its own
//                        included (all children count, as Curator counts them)
//
// Waiting holds the mutex, so there is at most one lease node beyond the granted ones: the
// other contenders queue on the mutex, each behind its predecessor, and only the mutex holder
// watches the leases children (one wake-up per release). The count alone keeps the holders to
// N: of any holders at one time, the one that listed last saw all the others' nodes.
// The fence is the lease node's czxid: the mutex orders the lease creates as it orders the
// grants, and zxids only grow.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "backends/backend.h"
#include "backends/zookeeper/contention.h"
#include "backends/zookeeper/context.h"
#include "backends/zookeeper/own_node.h"
#include "backends/zookeeper/wakeup.h"
#include "core/step_deadline.h"

namespace distlock::detail::zookeeper {

// A watch registered with the session for as long as it lives; a listing sent with its id
// leaves it on the children, and any change to them wakes the waiter (and calls `on_woken`).
class ChildrenWatch {
 public:
  explicit ChildrenWatch(std::shared_ptr<Session> session, Wakeup::OnWoken on_woken = {});
  ~ChildrenWatch();
  ChildrenWatch(const ChildrenWatch&) = delete;
  ChildrenWatch& operator=(const ChildrenWatch&) = delete;

  std::uint64_t id() const { return id_; }
  Wakeup& wakeup() const { return *wakeup_; }

 private:
  const std::shared_ptr<Session> session_;
  const std::shared_ptr<Wakeup> wakeup_;
  const std::uint64_t id_;
};

// Our lease node, as created.
struct CreatedLease {
  std::string prefix;  // "_c_<uuid>-lease-": what its name has before the sequence number
  CreateReply created;
};

// One acquisition's permit: run() waits on the calling thread; the steps below it are public
// for the acquisition that waits without a thread (async_semaphore.h), which takes the same
// steps between watch callbacks and timers.
class SemaphoreContention {
 public:
  // `path`: the lock path; the permits are request.hold.kind.permits.
  SemaphoreContention(const ZkContext& context, const AcquireRequest& request, std::string path);

  // A permit by the request's deadline, or nullopt. Throws BackendUnavailable when the
  // server cannot be reached within connect_timeout, ConfigError when it refuses access.
  std::optional<Won> run();
  // Whether it found the mutex or every permit taken (counted once in stats.contended).
  bool contended() const { return contended_; }

  // The mutex: an exclusive lock of its own, whose deadline only comes from the request.
  const AcquireRequest& mutex_request() const { return mutex_request_; }
  // The acquisition's deadline, as its steps see it.
  const AcquisitionDeadline& deadline() const { return deadline_; }
  const std::string& mutex_path() const { return mutex_path_; }
  // The mutex was won, after finding it taken or not: the ready session it is held in, or
  // null when its session ended meanwhile (and the mutex node with it: a new round).
  std::shared_ptr<Session> holding_mutex(const Won& mutex, bool mutex_contended);
  // With the mutex held in `session`: creates our lease node and, in the same round trip,
  // lists the leases (into `listed`), leaving `watch_id`'s watch on them. Nullopt when the
  // round must start over.
  std::optional<CreatedLease> create_lease(const std::shared_ptr<Session>& session,
                                           std::uint64_t watch_id, ChildrenReply& listed);
  // What a listing of the leases says, our lease being `lease` (kept when won, known gone
  // when starting over).
  Judged judge_leases(const std::shared_ptr<Session>& session, OwnNode& lease,
                      const CreatedLease& ours, const ChildrenReply& listed);
  // Lists the leases again, leaving `watch_id`'s watch on them.
  ChildrenReply list_leases(const std::shared_ptr<Session>& session, std::uint64_t watch_id) const;
  // Counts how a wait for the leases ended.
  void count_wake(Wakeup::Cause cause) const;

 private:
  // With the mutex held in `session`: adds our lease node and waits until it is among N.
  Next take_lease(const std::shared_ptr<Session>& session, std::optional<Won>& won);
  // After a connection problem: true when the same session is ready again.
  bool same_session_again(const std::shared_ptr<Session>& session) const;
  // As Contention's: riding an outage through in run() only.
  std::shared_ptr<Session> ready_session() const;

  [[noreturn]] void fail(int rc, const std::string& doing) const;

  const ZkContext& context_;
  const AcquireRequest& request_;
  const AcquisitionDeadline deadline_;
  const std::string path_;
  const std::string leases_;
  const std::string mutex_path_;
  AcquireRequest mutex_request_;
  bool contended_ = false;  // counted in stats.contended, waiting for the mutex or a lease
  // Engaged by run(): a blocking acquisition rides an outage through (core/ride_through.h).
  mutable std::optional<RideThrough> outage_;
};

}  // namespace distlock::detail::zookeeper
