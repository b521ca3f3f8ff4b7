// SPDX-License-Identifier: Apache-2.0
// Picks the backend a URL's scheme names.
#pragma once

#include <memory>
#include <string_view>

#include <distlock/client.h>

#include "backends/backend.h"
#include "core/stats.h"

namespace distlock::detail {

// Throws ConfigError for a bad URL or an unknown scheme, BackendUnavailable when the
// server cannot be reached.
std::unique_ptr<Backend> make_backend(std::string_view url, const Options& options,
                                      StatsCounters& stats);

}  // namespace distlock::detail
