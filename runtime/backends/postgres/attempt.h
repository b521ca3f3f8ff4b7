// SPDX-License-Identifier: Apache-2.0
// One try at a PostgreSQL lock, as the acquire statement answers it.
#pragma once

#include <optional>

#include "backends/backend.h"
#include "util/steady_clock.h"

namespace distlock::detail::postgres {

struct Attempt {
  std::optional<Grant> grant;
  // When not granted: the ms until the hold in the way runs out, or sooner, until a waiter
  // that keeps a place (a fair one, a writer) must ask again to keep it (0: try again at once).
  long long retry_in_ms = 0;
};

// Until when a waiter can sleep before it asks again; the extra millisecond keeps the retry
// from landing just before the hold in its way runs out, by the server's clock.
inline SteadyClock::time_point retry_time(long long retry_in_ms) {
  return SteadyClock::now() + std::chrono::milliseconds(retry_in_ms + 1);
}

}  // namespace distlock::detail::postgres
