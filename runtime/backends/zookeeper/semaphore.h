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

#include <memory>
#include <optional>
#include <string>

#include "backends/backend.h"
#include "backends/zookeeper/contention.h"
#include "backends/zookeeper/context.h"

namespace distlock::detail::zookeeper {

class SemaphoreContention {
 public:
  // `path`: the lock path; the permits are request.hold.kind.permits.
  SemaphoreContention(const ZkContext& context, const AcquireRequest& request, std::string path);

  // A permit by the request's deadline, or nullopt. Throws BackendUnavailable when the
  // server cannot be reached within connect_timeout, ConfigError when it refuses access.
  std::optional<Won> run();
  // Whether it found the mutex or every permit taken (counted once in stats.contended).
  bool contended() const { return contended_; }

 private:
  enum class Outcome { won, timed_out, start_over };

  // With the mutex held in `session`: adds our lease node and waits until it is among N.
  // start_over when the session ended or our node went (the mutex is then no longer ours).
  Outcome take_lease(const std::shared_ptr<Session>& session, std::optional<Won>& won);
  // After a connection problem: true when the same session is ready again.
  bool same_session_again(const std::shared_ptr<Session>& session) const;

  [[noreturn]] void fail(int rc, const std::string& doing) const;

  const ZkContext& context_;
  const AcquireRequest& request_;
  const std::string path_;
  const std::string leases_;
  bool contended_ = false;  // counted in stats.contended, waiting for the mutex or a lease
};

}  // namespace distlock::detail::zookeeper
