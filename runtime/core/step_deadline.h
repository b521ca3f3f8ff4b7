// SPDX-License-Identifier: Apache-2.0
// How long one blocking step (a connect, a wait for a pooled connection, a statement, a
// command) may take for its caller: its own timeout (connect_timeout, command_timeout), cut at
// the caller's deadline when that comes first. A caller that tries once (its deadline now or
// past: try_acquire) or waits without limit gets the step's own timeout: its try still needs
// the round trip.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include <distlock/duration.h>

#include "util/steady_clock.h"

namespace distlock::detail {

// For a step made on no caller's behalf (a release, creating the lock table): its own timeout.
inline constexpr SteadyClock::time_point kNoCallerDeadline{};

// `own` zero or less: the step has no timeout of its own.
inline SteadyClock::time_point step_deadline(SteadyClock::time_point caller, Millis own) {
  const auto now = SteadyClock::now();
  const auto own_end = own > Millis::zero() ? now + own : SteadyClock::time_point::max();
  return caller > now ? std::min(own_end, caller) : own_end;
}

// What ended a step that ran out at `until`, for its message: the caller's wait, or the step's
// own timeout ("connect_timeout 3000 ms").
inline std::string what_ended_step(SteadyClock::time_point until, SteadyClock::time_point caller,
                                   std::string_view own_name, Millis own) {
  if (until == caller) return "the wait ended first";
  return std::string(own_name) + " " + std::to_string(own.count()) + " ms";
}

}  // namespace distlock::detail
