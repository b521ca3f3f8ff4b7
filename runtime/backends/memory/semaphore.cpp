// SPDX-License-Identifier: Apache-2.0
#include "backends/memory/semaphore.h"

namespace distlock::detail::memory {

bool Semaphore::room_for(std::uint32_t permits, SteadyClock::time_point now) {
  permits_.drop_expired(now);
  return permits_.count() < permits;
}

Contest Semaphore::contest(const AcquireRequest& request) {
  const std::uint32_t permits = request.hold.kind.permits;
  return {waiting_,
          [this, permits, &request](TableAccess& table, SteadyClock::time_point now,
                                    const WaitQueue::Place*) -> Attempt {
            if (!room_for(permits, now)) return {std::nullopt, permits_.first_expiry()};
            return {permits_.take(request, table.next_fence(), now)};
          },
          [this, permits](TableAccess&) {
            if (room_for(permits, SteadyClock::now())) waiting_.wake_next();
          }};
}

ReleaseOutcome Semaphore::release(const ReleaseRequest& request, SteadyClock::time_point now) {
  switch (permits_.release(request.hold, request.keep_for, now)) {
    case ReleaseEffect::not_held:
      return ReleaseOutcome::not_held;
    case ReleaseEffect::freed:
      waiting_.wake_next();
      break;
    case ReleaseEffect::kept:
      waiting_.bound_waits(permits_.first_expiry());
      break;
    case ReleaseEffect::still_taken:
      break;
  }
  return ReleaseOutcome::released;
}

}  // namespace distlock::detail::memory
