// SPDX-License-Identifier: Apache-2.0
// postgresql://[user[:password]@]host[:port][,...][/database][?libpq parameters and
// command_timeout, max_connections, lock_table]: locks as rows of one table
// (lock_statements.h), acquired, released and renewed by single statements, waiters woken by
// LISTEN/NOTIFY (release_listener.h), leases kept by the server's clock and fences drawn from
// a sequence.
#pragma once

#include <memory>
#include <string_view>

#include <distlock/client.h>

#include "backends/backend.h"
#include "core/stats.h"

namespace distlock::detail::postgres {

// Connects at once and creates the lock table if it is missing. Throws ConfigError for a URL
// it cannot use or a table it may not create (saying how to create it by hand), and
// BackendUnavailable naming the server when the server cannot be reached or refuses the
// credentials.
std::unique_ptr<Backend> make_backend(std::string_view url, const Options& options,
                                      StatsCounters& stats);

}  // namespace distlock::detail::postgres
