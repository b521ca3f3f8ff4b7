// SPDX-License-Identifier: Apache-2.0
#include "backends/backend_factory.h"

#include "backends/memory/memory_backend.h"
#include "backends/redis/topology/cluster_backend.h"
#include "backends/redis/topology/redis_backend.h"
#include "backends/redis/topology/redlock_backend.h"
#if DISTLOCK_WITH_ZOOKEEPER
#include "backends/zookeeper/zookeeper_backend.h"
#endif
#if DISTLOCK_WITH_ETCD
#include "backends/etcd/etcd_backend.h"
#endif
#if DISTLOCK_WITH_POSTGRESQL
#include "backends/postgres/postgres_backend.h"
#include "backends/postgres/settings.h"
#endif
#include "backends/url_schemes.h"
#include "util/url.h"

namespace distlock::detail {

std::unique_ptr<Backend> make_backend(std::string_view text, const Options& options,
                                      StatsCounters& stats) {
#if DISTLOCK_WITH_POSTGRESQL
  // libpq's own URIs, which it parses itself (postgres/settings.h).
  if (postgres::is_postgres_url(text)) return postgres::make_backend(text, options, stats);
#endif
  const Url url = parse_url(text);
  const Options configured = options_for_scheme(url, options);
  const std::string topology = redis_topology(url);
  if (topology == "memory") return memory::make_backend(url, configured, stats);
  if (topology == "redis+cluster") return redis::make_cluster_backend(url, configured, stats);
  if (topology == "redis+redlock") return redis::make_redlock_backend(url, configured, stats);
  if (topology.starts_with("redis")) return redis::make_backend(url, configured, stats);
#if DISTLOCK_WITH_ZOOKEEPER
  if (url.scheme == "zookeeper") return zookeeper::make_backend(url, configured, stats);
#endif
#if DISTLOCK_WITH_ETCD
  if (url.scheme == "etcd" || url.scheme == "etcds")
    return etcd::make_backend(url, configured, stats);
#endif
  throw unknown_scheme(url);
}

}  // namespace distlock::detail
