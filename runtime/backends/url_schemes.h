// SPDX-License-Identifier: Apache-2.0
// The URL schemes this build takes, and the query keys each one accepts: one list for the
// client's backends and for the admin API's inspectors, so that the distlock command takes a
// service's URL exactly as the service does.
#pragma once

#include <distlock/client.h>
#include <distlock/error.h>

#include "util/url.h"

namespace distlock::detail {

// `options` with the query keys of the URL applied. Throws ConfigError for a key its scheme
// does not take, a malformed value, hosts or a path its scheme cannot use (a Redis Cluster
// without a seed or with a database, a Redlock of fewer than three masters), or a scheme this
// build has no backend for.
Options options_for_scheme(const Url& url, const Options& options);

// Whether the URL is one of Redis over TLS: rediss://, rediss+sentinel://, rediss+cluster://,
// rediss+redlock://.
bool uses_tls(const Url& url);
// The scheme of the topology, TLS or not: "redis+cluster" for rediss+cluster://; other schemes
// as they are.
std::string redis_topology(const Url& url);

// Whether a TLS URL's insecure= turns the check of the server's certificate off (true, yes,
// 1; false, no, 0 or none keep it). Throws ConfigError for any other value.
bool tls_insecure(const Url& url);

// The ConfigError for a scheme no backend takes, naming those that do.
ConfigError unknown_scheme(const Url& url);

}  // namespace distlock::detail
