// SPDX-License-Identifier: Apache-2.0
// distlock::admin on etcd: a client of its own (authenticated with the URL's credentials), the
// lock root read by LockListing, a hold force-released by deleting its key if it is still the
// one listed (the holder's next renewal finds it gone; the waiter behind, watching it, wakes).
#pragma once

#include <memory>

#include <distlock/client.h>

#include "admin/lock_inspector.h"
#include "util/url.h"

namespace distlock::detail::etcd {

// Connects within connect_timeout. Throws ConfigError for a URL it cannot use,
// BackendUnavailable when no member answers.
std::unique_ptr<LockInspector> make_inspector(const Url& url, const Options& options);

}  // namespace distlock::detail::etcd
