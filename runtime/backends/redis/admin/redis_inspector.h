// SPDX-License-Identifier: Apache-2.0
// distlock::admin on Redis: one server (redis://, redis+unix://), the master the sentinels
// name (redis+sentinel://), or each master of a Redlock (redis+redlock://), whose locks are
// listed per master (a Redlock hold lives on a majority of them, each with its own fence).
#pragma once

#include <memory>

#include <distlock/client.h>

#include "admin/lock_inspector.h"
#include "util/url.h"

namespace distlock::detail::redis {

// Connects to every server at once. Throws ConfigError for a URL it cannot use (a
// redis+cluster:// URL: list each master with redis://), BackendUnavailable when a server
// cannot be reached.
std::unique_ptr<LockInspector> make_inspector(const Url& url, const Options& options);

}  // namespace distlock::detail::redis
