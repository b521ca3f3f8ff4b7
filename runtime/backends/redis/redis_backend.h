// The Redis backend: one server over TCP or a unix socket. Locks are hashes changed only by
// Lua scripts (scripts/*.lua), waiters are woken by pub/sub, and renewals are pipelined.
#pragma once

#include <memory>

#include <distlock/client.h>

#include "backends/backend.h"
#include "core/stats.h"
#include "util/url.h"

namespace distlock::detail::redis {

// Connects at once and loads the scripts. Reads the query key `db` for redis+unix://.
// Throws ConfigError for a URL it cannot use, BackendUnavailable when the server cannot be
// reached or refuses the credentials.
std::unique_ptr<Backend> make_backend(const Url& url, const Options& options, StatsCounters& stats);

}  // namespace distlock::detail::redis
