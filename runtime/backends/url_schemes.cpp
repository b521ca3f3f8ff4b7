// SPDX-License-Identifier: Apache-2.0
#include "backends/url_schemes.h"

#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <distlock/log.h>

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

// The query keys of TLS, a rediss... URL's besides its redis... form's: redis-cli's option
// names (tls_context.h). etcds:// takes them too.
constexpr std::string_view kTlsKeys[] = {"cacert", "cacertdir", "cert", "key", "sni", "insecure"};

// A rediss+unix:// URL, or any rediss... URL in a build without TLS.
void refuse_tls(const Url& url) {
  if (redis_topology(url) == "redis+unix")
    throw ConfigError("", url.redacted(),
                      "bad URL: rediss+unix:// does not exist: a unix socket stays on its host, "
                      "where TLS protects nothing; write redis+unix:///path/to/redis.sock");
#if !DISTLOCK_WITH_TLS
  throw ConfigError("", url.redacted(),
                    "bad URL: this distlock was built without TLS (DISTLOCK_WITH_TLS=OFF), so "
                    "it takes no " +
                        url.scheme + "://; rebuild it with OpenSSL (libssl-dev)");
#endif
}

// The query keys of a Redis topology, in the clear; empty for a scheme that is none.
std::vector<std::string_view> redis_keys(const std::string& topology) {
  if (topology == "redis" || topology == "redis+cluster")
    return {"connect_timeout", "command_timeout", "max_connections",
            "min_replicas",    "outage_limit",    "reply_spin_us"};
  if (topology == "redis+unix" || topology == "redis+sentinel")
    return {"connect_timeout", "command_timeout", "max_connections", "db",
            "min_replicas",    "outage_limit",    "reply_spin_us"};
  // Each master is asked once per round: min_replicas has no meaning there.
  if (topology == "redis+redlock")
    return {"connect_timeout", "command_timeout", "max_connections", "outage_limit",
            "reply_spin_us"};
  return {};
}

void warn_if_insecure(const Url& url) {
  if (tls_insecure(url))
    detail::log(LogLevel::warning,
                url.redacted() +
                    ": insecure=true: the server's certificate is not verified; anyone on the "
                    "path can pose as the server");
}

}  // namespace

bool uses_tls(const Url& url) {
  return url.scheme == "rediss" || url.scheme.starts_with("rediss+");
}

std::string redis_topology(const Url& url) {
  if (!uses_tls(url)) return url.scheme;
  return "redis" + url.scheme.substr(std::string_view("rediss").size());
}

// The hosts are checked here rather than by the backends, so that the inspectors, which share
// no code with the backends beyond this file, take the same URLs.
Options options_for_scheme(const Url& url, const Options& options) {
  if (url.scheme == "memory") return options_from_url(url, options, {});
  const std::string topology = redis_topology(url);
  const bool tls = uses_tls(url);
  if (tls) refuse_tls(url);
  std::vector<std::string_view> keys = redis_keys(topology);
  if (!keys.empty()) {
    if (topology == "redis+cluster") check_cluster_hosts(url);
    if (topology == "redis+redlock") check_redlock_hosts(url);
    // One at a time: GCC 12 takes a range insert of the array, inlined, for an overflow.
    if (tls)
      for (const std::string_view key : kTlsKeys) keys.push_back(key);
    Options configured = options_from_url(url, options, keys);
    warn_if_insecure(url);
    return configured;
  }
  if (url.scheme == "zookeeper") {
#if DISTLOCK_WITH_ZOOKEEPER
    return options_from_url(
        url, options, {"connect_timeout", "command_timeout", "session_timeout", "outage_limit"});
#else
    throw ConfigError("", url.redacted(),
                      "bad URL: this distlock was built without the zookeeper:// backend "
                      "(DISTLOCK_WITH_ZOOKEEPER=OFF)");
#endif
  }
  if (url.scheme == "etcd" || url.scheme == "etcds") {
#if DISTLOCK_WITH_ETCD
    std::vector<std::string_view> keys = {"connect_timeout", "command_timeout", "outage_limit"};
    if (url.scheme == "etcds") keys.insert(keys.end(), std::begin(kTlsKeys), std::end(kTlsKeys));
    Options configured = options_from_url(url, options, keys);
    warn_if_insecure(url);
    return configured;
#else
    throw ConfigError("", url.redacted(),
                      "bad URL: this distlock was built without the etcd:// backend "
                      "(DISTLOCK_WITH_ETCD=OFF), so it takes no " +
                          url.scheme + "://");
#endif
  }
  throw unknown_scheme(url);
}

bool tls_insecure(const Url& url) {
  const std::optional<std::string> value = url.query_value("insecure");
  if (!value || *value == "false" || *value == "no" || *value == "0") return false;
  if (*value == "true" || *value == "yes" || *value == "1") return true;
  throw ConfigError("", url.redacted(), "TLS: query parameter 'insecure' must be true or false");
}

ConfigError unknown_scheme(const Url& url) {
  return ConfigError(
      "", url.redacted(),
      "bad URL: unknown scheme '" + url.scheme +
          "'; use memory://, redis://host:port, redis+unix:///path, "
          "redis+sentinel://host:port[,host:port...]/master-name, "
          "redis+cluster://host:port[,host:port...], "
          "redis+redlock://host:port,host:port,host:port (rediss... for TLS), "
          "zookeeper://host:port, etcd://host:port[,host:port...] (etcds:// for TLS) or "
          "postgresql://user@host:port/database");
}

}  // namespace distlock::detail
