// SPDX-License-Identifier: Apache-2.0
// memory://[name]: locks inside this process, with the semantics of the networked backends
// (ttl, reentrancy, fencing, waiting). Clients that use the same name share one lock table.
#pragma once

#include <memory>

#include <distlock/client.h>

#include "backends/backend.h"
#include "core/stats.h"
#include "util/url.h"

namespace distlock::detail::memory {

std::unique_ptr<Backend> make_backend(const Url& url, const Options& options, StatsCounters& stats);

}  // namespace distlock::detail::memory
