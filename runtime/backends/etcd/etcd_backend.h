// SPDX-License-Identifier: Apache-2.0
// etcd://[user:password@]host[:port][,host[:port]...][?connect_timeout, command_timeout]:
// locks as etcd's recipes lay them out (key_layout.h: concurrency.Mutex, recipes.RWMutex, and a
// semaphore as Curator's), over etcd's gRPC API (rpc_client.h). Each acquisition has a lease of
// its own, kept alive by the renewal queue; a waiter watches the deletion that holds it back
// (deletion_watcher.h); the fence is the holder key's create revision.
#pragma once

#include <memory>

#include <distlock/client.h>

#include "backends/backend.h"
#include "core/stats.h"
#include "util/url.h"

namespace distlock::detail::etcd {

// Connects at once. Throws ConfigError for a URL it cannot use, and BackendUnavailable naming
// the server when no member answers or the credentials are refused.
std::unique_ptr<Backend> make_backend(const Url& url, const Options& options, StatsCounters& stats);

}  // namespace distlock::detail::etcd
