// SPDX-License-Identifier: Apache-2.0
// Redlock: one lock over N independent Redis masters (redis+redlock://h1:p1,h2:p2,h3:p3). A
// lock is held when a majority granted it within its validity budget; each master runs the
// same scripts as a single server (redis_backend.h), one backend per master.
//
// Fences: each master keeps its own counter, and a Redlock fence is the largest of the
// majority's. Any two majorities share a master, whose counter grew between the two grants,
// and every fence is at least its master's time in microseconds (scripts/acquire.lua). So a
// later holder's fence is larger as long as the masters' clocks agree to within the time
// between the two grants; a master whose clock runs ahead by more can make a later fence
// smaller (docs/guide.md, and the tests that show both).
#pragma once

#include <memory>

#include <distlock/client.h>

#include "backends/backend.h"
#include "core/stats.h"
#include "util/url.h"

namespace distlock::detail::redis {

// Connects to every master at once, for a URL options_for_scheme took (three masters at
// least). Throws BackendUnavailable when fewer than a majority can be reached.
std::unique_ptr<Backend> make_redlock_backend(const Url& url, const Options& options,
                                              StatsCounters& stats);

}  // namespace distlock::detail::redis
