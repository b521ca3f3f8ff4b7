// memory://[name]: locks inside this process, with the semantics of the networked backends
// (ttl, reentrancy, fencing, waiting). Clients that use the same name share one lock table.
#pragma once

#include <memory>

#include <distlock/client.h>

#include "backend.h"
#include "stats.h"
#include "url.h"

namespace distlock::detail {

std::unique_ptr<Backend> make_memory_backend(const Url& url, const Options& options,
                                             StatsCounters& stats);

}  // namespace distlock::detail
