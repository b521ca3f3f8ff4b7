// SPDX-License-Identifier: Apache-2.0
// One in-process lock table: every lock kind of every name, shared by the clients of one
// memory:// name for the process's lifetime, so that fences keep increasing however clients
// come and go. One mutex guards it all; waiters wait on condition variables of their own.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

#include "backends/backend.h"
#include "backends/memory/exclusive_lock.h"
#include "backends/memory/read_write_lock.h"
#include "backends/memory/semaphore.h"
#include "core/stats.h"

namespace distlock::detail::memory {

class LockTable : public std::enable_shared_from_this<LockTable> {
 public:
  std::optional<Grant> acquire(const AcquireRequest& request, StatsCounters& stats);
  // Waits without a thread: attempts on `executor`, woken by releases and by timers at the
  // holders' expiry (async_contender.h).
  std::shared_ptr<PendingAcquisition> acquire_async(const AcquireRequest& request,
                                                    StatsCounters& stats, AsyncExecutor& executor,
                                                    AcquireCompletion done);
  ReleaseOutcome release(const ReleaseRequest& request);
  void renew(std::span<RenewItem> items);

 private:
  // The locks of one name: three kinds, which do not exclude each other.
  struct NamedLocks {
    ExclusiveLock exclusive;
    ReadWriteLock read_write;
    Semaphore semaphore;

    bool idle(SteadyClock::time_point now) {
      return exclusive.idle(now) && read_write.idle(now) && semaphore.idle(now);
    }
    // The contest of an acquisition of the kind `request` names; it refers to `request`.
    Contest contest(const AcquireRequest& request);
  };
  friend class AsyncContender;

  // Forgets the name's locks once nothing holds or waits for them, so that the table does
  // not grow with every name ever used.
  void forget_if_idle(const std::string& name, SteadyClock::time_point now);

  std::mutex mutex_;
  // Node-based: a waiter's locks stay where they are while other names come and go.
  std::unordered_map<std::string, NamedLocks> locks_;
  std::uint64_t last_fence_ = 0;
};

}  // namespace distlock::detail::memory
