// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/connection_settings.h"

#include <distlock/error.h>

#include "backends/url_schemes.h"
#include "util/decimal.h"
#if DISTLOCK_WITH_TLS
#include "backends/redis/transport/tls_context.h"
#endif

namespace distlock::detail::redis {
namespace {

constexpr std::uint16_t kDefaultPort = 6379;
constexpr std::uint16_t kDefaultSentinelPort = 26379;

[[noreturn]] void bad_url(const Url& url, const std::string& why) {
  throw ConfigError("", url.redacted(), "bad URL: " + why);
}

// `where` names the value; a query value itself never shows, as it may be a secret.
unsigned parse_db(const Url& url, std::string_view text, const std::string& where) {
  const auto db = parse_decimal<unsigned>(text);
  if (!db) bad_url(url, where + " is not a database number such as 0 or 3");
  return *db;
}

std::chrono::microseconds parse_reply_spin(const Url& url, std::string_view text) {
  const auto micros = parse_decimal<unsigned>(text);
  if (!micros || *micros > 10'000)
    bad_url(url,
            "query parameter 'reply_spin_us' must be a whole number of microseconds from 0 "
            "(never) to 10000, such as 100");
  return std::chrono::microseconds(*micros);
}

unsigned parse_replicas(const Url& url, std::string_view text) {
  const auto replicas = parse_decimal<unsigned>(text);
  if (!replicas)
    bad_url(url, "query parameter 'min_replicas' must be a whole number such as 0 or 1");
  return *replicas;
}

Address address_of(const Endpoint& endpoint) {
  return {endpoint.host, endpoint.port.value_or(kDefaultPort), {}};
}

}  // namespace

std::string Address::describe() const {
  return socket_path.empty() ? host + ":" + std::to_string(port) : socket_path;
}

ConnectionSettings connection_settings(const Url& url, const Options& options) {
  ConnectionSettings settings;
  settings.server = url.redacted();
  // "redis://:secret@host" gives an empty user: that is a password without ACL user.
  if (url.user && !url.user->empty()) settings.user = url.user;
  // Redis has no login by user name alone: the user would be ignored, and the commands run as
  // the default user, silently. The message does not repeat the user: it may be a password
  // written without its colon.
  if (settings.user && !url.password)
    bad_url(url,
            "a user without a password; Redis logs an ACL user in with both "
            "(redis://user:password@host:6379), the default user with the password alone "
            "(redis://:password@host:6379)");
  settings.password = url.password;
  settings.connect_timeout = options.connect_timeout;
  settings.command_timeout = options.command_timeout;
  settings.outage_limit = options.outage_limit;
  settings.max_connections = options.max_connections;
  if (settings.max_connections == 0) bad_url(url, "max_connections must be at least 1");
  if (const auto replicas = url.query_value("min_replicas"))
    settings.min_replicas = parse_replicas(url, *replicas);
  if (const auto spin = url.query_value("reply_spin_us"))
    settings.reply_spin = parse_reply_spin(url, *spin);

#if DISTLOCK_WITH_TLS
  if (uses_tls(url)) settings.tls = std::make_shared<const TlsContext>(url);
#endif
  const std::string topology = redis_topology(url);

  if (topology == "redis+unix") {
    if (!url.endpoints.empty())
      bad_url(url, "redis+unix:// takes no host; write redis+unix:///path/to/redis.sock");
    if (url.path.empty() || url.path == "/")
      bad_url(url, "the socket path is missing; write redis+unix:///path/to/redis.sock");
    settings.address.socket_path = url.path;
    if (const auto db = url.query_value("db"))
      settings.db = parse_db(url, *db, "query parameter 'db'");
    return settings;
  }

  if (topology == "redis+sentinel") {
    if (url.endpoints.empty())
      bad_url(url, "no sentinel given; write " + url.scheme +
                       "://host:26379[,host:port...]/master-name");
    for (const auto& endpoint : url.endpoints) {
      settings.sentinels.push_back(address_of(endpoint));
      if (!endpoint.port) settings.sentinels.back().port = kDefaultSentinelPort;
    }
    settings.master_name = url.path.empty() ? std::string() : url.path.substr(1);
    if (settings.master_name.empty() || settings.master_name.find('/') != std::string::npos)
      bad_url(url, "the master name is missing; write " + url.scheme +
                       "://host:port[,host:port...]/master-name (the name the sentinels monitor), "
                       "and ?db=N for a database");
    if (const auto db = url.query_value("db"))
      settings.db = parse_db(url, *db, "query parameter 'db'");
    return settings;
  }

  if (url.endpoints.size() != 1)
    bad_url(url, url.scheme + ":// takes exactly one host; for a replicated Redis write " +
                     url.scheme + "+sentinel://sentinel:26379[,sentinel:port...]/master-name");
  settings.address = address_of(url.endpoints.front());
  if (!url.path.empty() && url.path != "/")
    settings.db =
        parse_db(url, std::string_view(url.path).substr(1), "the path '" + url.path + "'");
  return settings;
}

}  // namespace distlock::detail::redis
