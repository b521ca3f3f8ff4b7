// SPDX-License-Identifier: Apache-2.0
// The semaphore of one name, apart from its locks: up to `permits` holds at once, each
// acquisition a hold of its own (no reentry) with its own expiry and fence.
#pragma once

#include <optional>

#include "backends/backend.h"
#include "backends/memory/contention.h"
#include "backends/memory/holds.h"
#include "backends/memory/wait_queue.h"

namespace distlock::detail::memory {

class Semaphore {
 public:
  // The contest of an acquisition of a permit; it refers to `request`.
  Contest contest(const AcquireRequest& request);
  ReleaseOutcome release(const ReleaseRequest& request, SteadyClock::time_point now);
  bool renew(const HoldId& hold, Millis ttl, SteadyClock::time_point now) {
    return permits_.renew(hold, ttl, now);
  }
  // Neither held nor waited for: the table may forget it.
  bool idle(SteadyClock::time_point now) {
    permits_.drop_expired(now);
    return permits_.empty() && waiting_.empty();
  }

 private:
  // Whether a permit is free for a semaphore of `permits`: each spec says how many it has.
  bool room_for(std::uint32_t permits, SteadyClock::time_point now);

  SharedHolds permits_;
  WaitQueue waiting_;  // a permit's release wakes the next waiter
};

}  // namespace distlock::detail::memory
