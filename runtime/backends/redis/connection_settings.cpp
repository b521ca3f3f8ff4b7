#include "backends/redis/connection_settings.h"

#include <charconv>

#include <distlock/error.h>

namespace distlock::detail::redis {
namespace {

constexpr std::uint16_t kDefaultPort = 6379;

[[noreturn]] void bad_url(const Url& url, const std::string& why) {
  throw ConfigError("", url.redacted(), "bad URL: " + why);
}

unsigned parse_db(const Url& url, std::string_view text, std::string_view where) {
  unsigned db = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), db);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    bad_url(url, std::string(where) + " '" + std::string(text) +
                     "' is not a database number such as 0 or 3");
  return db;
}

}  // namespace

ConnectionSettings connection_settings(const Url& url, const Options& options) {
  ConnectionSettings settings;
  settings.server = url.redacted();
  // "redis://:secret@host" gives an empty user: that is a password without ACL user.
  if (url.user && !url.user->empty()) settings.user = url.user;
  settings.password = url.password;
  settings.connect_timeout = options.connect_timeout;
  settings.command_timeout = options.command_timeout;
  settings.max_connections = options.max_connections;
  if (settings.max_connections == 0) bad_url(url, "max_connections must be at least 1");

  if (url.scheme == "redis+unix") {
    if (!url.endpoints.empty())
      bad_url(url, "redis+unix:// takes no host; write redis+unix:///path/to/redis.sock");
    if (url.path.empty() || url.path == "/")
      bad_url(url, "the socket path is missing; write redis+unix:///path/to/redis.sock");
    settings.socket_path = url.path;
    if (const auto db = url.query_value("db")) settings.db = parse_db(url, *db, "db");
    return settings;
  }

  if (url.endpoints.size() != 1)
    bad_url(url,
            "redis:// takes exactly one host (Sentinel, Cluster and Redlock are not "
            "supported by this backend)");
  settings.host = url.endpoints.front().host;
  settings.port = url.endpoints.front().port.value_or(kDefaultPort);
  if (!url.path.empty() && url.path != "/")
    settings.db = parse_db(url, std::string_view(url.path).substr(1), "the path");
  return settings;
}

}  // namespace distlock::detail::redis
