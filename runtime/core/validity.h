// SPDX-License-Identifier: Apache-2.0
// How long a lease may be trusted without asking the server.
#pragma once

#include <chrono>

#include <distlock/duration.h>
#include "util/steady_clock.h"

namespace distlock::detail {

// Clock rates differ between the client and the server: trust 1% less, and 2 ms less for
// the time the server's own expiry may run ahead.
constexpr Millis drift_allowance(Millis ttl) { return ttl / 100 + Millis(2); }

// The request that won (or extended) the lock was sent at `sent_at`; the server cannot have
// started its ttl earlier, so the lock is ours until at least this point.
constexpr SteadyClock::time_point valid_until(SteadyClock::time_point sent_at, Millis ttl) {
  return sent_at + ttl - drift_allowance(ttl);
}

}  // namespace distlock::detail
