// SPDX-License-Identifier: Apache-2.0
// How long one blocking step (a connect, a wait for a pooled connection, a statement, a
// command) may take for its caller: its own timeout (connect_timeout, command_timeout), cut at
// the caller's deadline when that comes first, but never to less than a second (or its own
// timeout, when shorter): a step begun just before the deadline still gets a round trip's
// time, so that a wait of 250 ms on a slow but answering server ends as a LockTimeout, not a
// failed step. A caller that tries once (its deadline now or past: try_acquire) or waits
// without limit gets the step's own timeout: its try still needs the round trip.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include <distlock/duration.h>

#include "util/steady_clock.h"

namespace distlock::detail {

// For a step made on no caller's behalf (a release, creating the lock table): its own timeout.
inline constexpr SteadyClock::time_point kNoCallerDeadline{};

// The least a step cut by its caller's deadline gets.
inline constexpr Millis kStepGrace{1000};

// Whether a caller's wait has ended, so that a step not yet begun for it (asking the next of
// several servers) is not begun at all. A caller without a deadline never ends.
inline bool caller_wait_over(SteadyClock::time_point caller) {
  return caller != kNoCallerDeadline && SteadyClock::now() >= caller;
}

// `own` zero or less: the step has no timeout of its own.
inline SteadyClock::time_point step_deadline(SteadyClock::time_point caller, Millis own) {
  const auto now = SteadyClock::now();
  const bool bounded = own > Millis::zero();
  const auto own_end = bounded ? now + own : SteadyClock::time_point::max();
  if (caller <= now) return own_end;
  const auto grace_end = now + (bounded ? std::min(own, kStepGrace) : kStepGrace);
  return std::min(own_end, std::max(caller, grace_end));
}

// An acquisition's deadline as its steps see it. A try (its deadline at or before its start)
// gives its steps their own timeouts (kNoCallerDeadline): its one attempt needs them. A wait
// cuts them at its deadline, and once that has passed, a step begun then (a last look at the
// lock, giving the waiter's place back) gets the grace, not its own timeout.
class AcquisitionDeadline {
 public:
  explicit AcquisitionDeadline(SteadyClock::time_point deadline)
      : deadline_(deadline), tries_(deadline <= SteadyClock::now()) {}

  // The caller deadline to give step_deadline for a step begun now.
  SteadyClock::time_point for_steps() const {
    if (tries_) return kNoCallerDeadline;
    return std::max(deadline_, SteadyClock::now() + kStepGrace);
  }
  // Whether a wait has reached its deadline (a try ends with its attempt instead).
  bool wait_over() const { return !tries_ && SteadyClock::now() >= deadline_; }
  SteadyClock::time_point end() const { return deadline_; }

 private:
  SteadyClock::time_point deadline_;
  bool tries_;
};

// Whether the caller's wait, not the step's own timeout, set `until` (step_deadline's): it is
// the caller's deadline, or the grace after it.
inline bool cut_by_caller(SteadyClock::time_point until, SteadyClock::time_point caller,
                          Millis own) {
  const Millis grace = own > Millis::zero() ? std::min(own, kStepGrace) : kStepGrace;
  return until == caller || (caller < until && caller > until - grace);
}

// What ended a step that ran out at `until`, for its message: the caller's wait, or the step's
// own timeout ("connect_timeout 3000 ms").
inline std::string what_ended_step(SteadyClock::time_point until, SteadyClock::time_point caller,
                                   std::string_view own_name, Millis own) {
  if (cut_by_caller(until, caller, own)) return "the wait ended first";
  return std::string(own_name) + " " + std::to_string(own.count()) + " ms";
}

}  // namespace distlock::detail
