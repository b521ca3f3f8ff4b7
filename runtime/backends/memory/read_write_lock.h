// SPDX-License-Identifier: Apache-2.0
// The read-write lock of one name, apart from its exclusive lock: many readers or one writer.
// The writer's hold is reentrant; each read is a hold of its own, with its own fence. Writers
// are not starved: while one waits, readers wait too unless they already read the lock or hold
// its write side.
#pragma once

#include <optional>

#include "backends/backend.h"
#include "backends/memory/contention.h"
#include "backends/memory/holds.h"
#include "backends/memory/wait_queue.h"

namespace distlock::detail::memory {

class ReadWriteLock {
 public:
  // The contest of an acquisition of this lock; it refers to `request`.
  Contest contest(const AcquireRequest& request);
  ReleaseOutcome release(const ReleaseRequest& request, SteadyClock::time_point now);
  bool renew(const HoldId& hold, Millis ttl, SteadyClock::time_point now);
  // Neither held nor waited for: the table may forget it.
  bool idle(SteadyClock::time_point now);

 private:
  Attempt attempt_read(const AcquireRequest& request, SteadyClock::time_point now,
                       TableAccess& table);
  Attempt attempt_write(const AcquireRequest& request, SteadyClock::time_point now,
                        TableAccess& table);

  OwnerHold writer_;
  SharedHolds readers_;
  WaitQueue waiting_readers_;
  WaitQueue waiting_writers_;  // while any waits, new readers hold back
};

}  // namespace distlock::detail::memory
