// SPDX-License-Identifier: Apache-2.0
// One try at a PostgreSQL lock, as the acquire statement answers it.
#pragma once

#include <optional>

#include "backends/backend.h"
#include "util/steady_clock.h"

namespace distlock::detail::postgres {

struct Attempt {
  std::optional<Grant> grant;
  // When not granted: the ms until the holder's lease runs out (0: try again at once).
  long long holder_ms_left = 0;
};

// Until when a waiter can sleep before the lease in its way runs out by itself; the extra
// millisecond keeps the retry from landing just before it does, by the server's clock.
inline SteadyClock::time_point holder_gone(long long holder_ms_left) {
  return SteadyClock::now() + std::chrono::milliseconds(holder_ms_left + 1);
}

}  // namespace distlock::detail::postgres
