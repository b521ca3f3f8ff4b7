// SPDX-License-Identifier: Apache-2.0
// distlock::admin on ZooKeeper: a session of its own (authenticated with the URL's
// credentials), the lock root walked by LockListing, holds deleted by force_release.
#pragma once

#include <memory>

#include <distlock/client.h>

#include "admin/lock_inspector.h"
#include "util/url.h"

namespace distlock::detail::zookeeper {

// Connects within connect_timeout. Throws ConfigError for a URL it cannot use,
// BackendUnavailable when no server answers.
std::unique_ptr<LockInspector> make_inspector(const Url& url, const Options& options);

}  // namespace distlock::detail::zookeeper
