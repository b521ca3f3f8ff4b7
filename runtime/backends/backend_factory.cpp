#include "backends/backend_factory.h"

#include <distlock/error.h>

#include "backends/memory/memory_backend.h"
#include "backends/redis/cluster_backend.h"
#include "backends/redis/redis_backend.h"
#include "backends/redis/redlock_backend.h"
#if DISTLOCK_WITH_ZOOKEEPER
#include "backends/zookeeper/zookeeper_backend.h"
#endif
#include "core/client_config.h"
#include "util/url.h"

namespace distlock::detail {

std::unique_ptr<Backend> make_backend(std::string_view text, const Options& options,
                                      StatsCounters& stats) {
  const Url url = parse_url(text);
  if (url.scheme == "memory") {
    return memory::make_backend(url, options_from_url(url, options, {}), stats);
  }
  if (url.scheme == "redis") {
    return redis::make_backend(
        url,
        options_from_url(url, options,
                         {"connect_timeout", "command_timeout", "max_connections", "min_replicas"}),
        stats);
  }
  if (url.scheme == "redis+unix" || url.scheme == "redis+sentinel") {
    return redis::make_backend(url,
                               options_from_url(url, options,
                                                {"connect_timeout", "command_timeout",
                                                 "max_connections", "db", "min_replicas"}),
                               stats);
  }
  if (url.scheme == "redis+cluster") {
    return redis::make_cluster_backend(
        url,
        options_from_url(url, options,
                         {"connect_timeout", "command_timeout", "max_connections", "min_replicas"}),
        stats);
  }
  if (url.scheme == "redis+redlock") {
    return redis::make_redlock_backend(
        url,
        options_from_url(url, options, {"connect_timeout", "command_timeout", "max_connections"}),
        stats);
  }
  if (url.scheme == "zookeeper") {
#if DISTLOCK_WITH_ZOOKEEPER
    return zookeeper::make_backend(
        url,
        options_from_url(url, options, {"connect_timeout", "command_timeout", "session_timeout"}),
        stats);
#else
    throw ConfigError("", url.redacted(),
                      "bad URL: this distlock was built without the zookeeper:// backend "
                      "(DISTLOCK_WITH_ZOOKEEPER=OFF)");
#endif
  }
  throw ConfigError("", url.redacted(),
                    "bad URL: unknown scheme '" + url.scheme +
                        "'; use memory://, redis://host:port, redis+unix:///path, "
                        "redis+sentinel://host:port[,host:port...]/master-name, "
                        "redis+cluster://host:port[,host:port...], "
                        "redis+redlock://host:port,host:port,host:port or "
                        "zookeeper://host:port");
}

}  // namespace distlock::detail
