// SPDX-License-Identifier: Apache-2.0
#include "backends/memory/semaphore.h"

namespace distlock::detail::memory {

bool Semaphore::room_for(std::uint32_t permits, SteadyClock::time_point now) {
  permits_.drop_expired(now);
  return permits_.count() < permits;
}

std::optional<Grant> Semaphore::acquire(const AcquireRequest& request, TableAccess& table) {
  const std::uint32_t permits = request.hold.kind.permits;
  const auto grant =
      take_or_wait(table, waiting_, request.deadline,
                   [&](SteadyClock::time_point now, const WaitQueue::Place*) -> Attempt {
                     if (!room_for(permits, now)) return {std::nullopt, permits_.first_expiry()};
                     return {permits_.take(request, table.next_fence(), now)};
                   });
  // A waiter that gives up may have been the one woken for a free permit: the next takes it.
  if (!grant && room_for(permits, SteadyClock::now())) waiting_.wake_next();
  return grant;
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
