// Where and how the Redis backend connects, as a redis:// or redis+unix:// URL and the
// options say.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <distlock/client.h>
#include <distlock/duration.h>

#include "util/url.h"

namespace distlock::detail::redis {

struct ConnectionSettings {
  std::string server;  // the URL without its password, as messages name it
  std::string host;    // TCP; empty when connecting to a unix socket
  std::uint16_t port = 6379;
  std::string socket_path;  // unix socket; empty for TCP
  std::optional<std::string> user;
  std::optional<std::string> password;
  unsigned db = 0;
  Millis connect_timeout{0};
  Millis command_timeout{0};
  unsigned max_connections = 1;
};

// redis://[user:password@]host[:port][/db] and redis+unix:///socket/path[?db=N]. Throws
// ConfigError for what such a URL cannot mean (several hosts, a database that is no number).
ConnectionSettings connection_settings(const Url& url, const Options& options);

}  // namespace distlock::detail::redis
