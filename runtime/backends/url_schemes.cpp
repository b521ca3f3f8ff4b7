// SPDX-License-Identifier: Apache-2.0
#include "backends/url_schemes.h"

#include "core/client_config.h"

namespace distlock::detail {
namespace {

constexpr std::size_t kFewestRedlockMasters = 3;

void check_cluster_hosts(const Url& url) {
  if (url.endpoints.empty())
    throw ConfigError(
        "", url.redacted(),
        "bad URL: no cluster node given; write redis+cluster://host:port[,host:port...]");
  if (!url.path.empty() && url.path != "/" && url.path != "/0")
    throw ConfigError("", url.redacted(),
                      "bad URL: a Redis Cluster has only database 0; remove the path");
}

void check_redlock_hosts(const Url& url) {
  if (url.endpoints.size() < kFewestRedlockMasters)
    throw ConfigError("", url.redacted(),
                      "bad URL: Redlock needs at least 3 independent masters, got " +
                          std::to_string(url.endpoints.size()) +
                          "; write redis+redlock://host1:port,host2:port,host3:port "
                          "(an odd number: 3 or 5)");
}

}  // namespace

// The hosts are checked here rather than by the backends, so that the inspectors, which share
// no code with the backends beyond this file, take the same URLs.
Options options_for_scheme(const Url& url, const Options& options) {
  if (url.scheme == "memory") return options_from_url(url, options, {});
  if (url.scheme == "redis+cluster") check_cluster_hosts(url);
  if (url.scheme == "redis" || url.scheme == "redis+cluster")
    return options_from_url(
        url, options,
        {"connect_timeout", "command_timeout", "max_connections", "min_replicas", "outage_limit"});
  if (url.scheme == "redis+unix" || url.scheme == "redis+sentinel")
    return options_from_url(url, options,
                            {"connect_timeout", "command_timeout", "max_connections", "db",
                             "min_replicas", "outage_limit"});
  // Each master is asked once per round: min_replicas has no meaning there.
  if (url.scheme == "redis+redlock") {
    check_redlock_hosts(url);
    return options_from_url(url, options,
                            {"connect_timeout", "command_timeout", "max_connections"});
  }
  if (url.scheme == "zookeeper") {
#if DISTLOCK_WITH_ZOOKEEPER
    return options_from_url(url, options,
                            {"connect_timeout", "command_timeout", "session_timeout"});
#else
    throw ConfigError("", url.redacted(),
                      "bad URL: this distlock was built without the zookeeper:// backend "
                      "(DISTLOCK_WITH_ZOOKEEPER=OFF)");
#endif
  }
  throw unknown_scheme(url);
}

ConfigError unknown_scheme(const Url& url) {
  if (url.scheme == "rediss")
    return ConfigError("", url.redacted(),
                       "bad URL: TLS (rediss://) is not supported: the hiredis distlock is "
                       "built with (Debian 12's 0.14) has none; reach the server through a TLS "
                       "tunnel (stunnel, spiped) with redis://, or over a network you trust");
  return ConfigError("", url.redacted(),
                     "bad URL: unknown scheme '" + url.scheme +
                         "'; use memory://, redis://host:port, redis+unix:///path, "
                         "redis+sentinel://host:port[,host:port...]/master-name, "
                         "redis+cluster://host:port[,host:port...], "
                         "redis+redlock://host:port,host:port,host:port or "
                         "zookeeper://host:port");
}

}  // namespace distlock::detail
