// SPDX-License-Identifier: Apache-2.0
// The one clock the runtime measures leases, waits and timeouts with.
#pragma once

#include <chrono>

namespace distlock::detail {

using SteadyClock = std::chrono::steady_clock;

}  // namespace distlock::detail
