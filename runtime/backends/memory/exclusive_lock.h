// SPDX-License-Identifier: Apache-2.0
// The exclusive lock of one name: one owner, reentrant. Fair acquisitions queue in arrival
// order and a release wakes the first of them only; others take the lock whenever it is free,
// and a release wakes one of them too, in arrival order.
#pragma once

#include <optional>

#include "backends/backend.h"
#include "backends/memory/contention.h"
#include "backends/memory/holds.h"
#include "backends/memory/wait_queue.h"

namespace distlock::detail::memory {

class ExclusiveLock {
 public:
  // The contest of an acquisition of this lock; it refers to `request`.
  Contest contest(const AcquireRequest& request);
  ReleaseOutcome release(const ReleaseRequest& request, SteadyClock::time_point now);
  bool renew(const HoldId& hold, Millis ttl, SteadyClock::time_point now) {
    return hold_.renew(hold, ttl, now);
  }
  // Neither held nor waited for: the table may forget it.
  bool idle(SteadyClock::time_point now) const {
    return !hold_.taken(now) && waiting_.empty() && fair_waiting_.empty();
  }

 private:
  // One attempt by a fair acquisition, `place` its place in the queue (null: not queued yet).
  Attempt attempt_fair(const AcquireRequest& request, const WaitQueue::Place* place,
                       SteadyClock::time_point now, TableAccess& table);
  // Takes the free lock. Fair waiters that were not next while it was free wait for nothing
  // but their deadlines: from now on, the new hold's expiry bounds their waits as well.
  Grant take(const AcquireRequest& request, SteadyClock::time_point now, TableAccess& table);

  OwnerHold hold_;
  WaitQueue waiting_;       // the first not woken yet is woken by a release or a give-up
  WaitQueue fair_waiting_;  // in arrival order: a release wakes the first only
};

}  // namespace distlock::detail::memory
