// SPDX-License-Identifier: Apache-2.0
#include "backends/memory/exclusive_lock.h"

namespace distlock::detail::memory {

Attempt ExclusiveLock::attempt_fair(const AcquireRequest& request, const WaitQueue::Place* place,
                                    SteadyClock::time_point now, TableAccess& table) {
  if (hold_.taken_by(request.hold.owner, now)) return {hold_.reenter(request, now)};
  if (hold_.taken(now)) return {std::nullopt, hold_.expires_at()};
  // Free, but earlier fair waiters go first: the first of them has been woken to take it.
  const bool next_in_line = place == nullptr ? fair_waiting_.empty() : place->first();
  if (!next_in_line) return {};
  return {take(request, now, table)};
}

Grant ExclusiveLock::take(const AcquireRequest& request, SteadyClock::time_point now,
                          TableAccess& table) {
  const Grant grant = hold_.take(request, table.next_fence(), now);
  fair_waiting_.bound_waits(hold_.expires_at());
  return grant;
}

Contest ExclusiveLock::contest(const AcquireRequest& request) {
  if (request.hold.kind.fair) {
    return {fair_waiting_,
            [this, &request](TableAccess& table, SteadyClock::time_point now,
                             const WaitQueue::Place* place) {
              return attempt_fair(request, place, now, table);
            },
            [this](TableAccess&) {
              if (!hold_.taken(SteadyClock::now())) fair_waiting_.wake_next();
            }};
  }
  return {waiting_,
          [this, &request](TableAccess& table, SteadyClock::time_point now,
                           const WaitQueue::Place*) -> Attempt {
            if (hold_.taken_by(request.hold.owner, now)) return {hold_.reenter(request, now)};
            if (hold_.taken(now)) return {std::nullopt, hold_.expires_at()};
            return {take(request, now, table)};
          },
          [this](TableAccess&) {
            if (!hold_.taken(SteadyClock::now())) waiting_.wake_next();
          }};
}

ReleaseOutcome ExclusiveLock::release(const ReleaseRequest& request, SteadyClock::time_point now) {
  switch (hold_.release(request.hold, request.keep_for, now)) {
    case ReleaseEffect::not_held:
      return ReleaseOutcome::not_held;
    case ReleaseEffect::freed:
      // One taker: a woken waiter that loses to an acquisition that did not wait is woken
      // again by that one's release.
      fair_waiting_.wake_next();
      waiting_.wake_next();
      break;
    case ReleaseEffect::kept:
      waiting_.bound_waits(hold_.expires_at());
      fair_waiting_.bound_waits(hold_.expires_at());
      break;
    case ReleaseEffect::still_taken:
      break;
  }
  return ReleaseOutcome::released;
}

}  // namespace distlock::detail::memory
