// SPDX-License-Identifier: Apache-2.0
// Where and how the PostgreSQL backend connects: postgresql:// and postgres:// are libpq's own
// connection URIs, and every libpq parameter in them (sslmode, application_name, ...) goes to
// libpq as written. distlock's own query keys (command_timeout, max_connections, lock_table)
// are taken out first: libpq refuses keys it does not know.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <distlock/client.h>
#include <distlock/duration.h>

namespace distlock::detail::postgres {

struct PostgresSettings {
  // The server as messages name it: postgresql://host:port/database, never the user, the
  // password or the query.
  std::string server;
  // The URL without distlock's keys, for libpq.
  std::string conninfo;
  // How long a connection may take to be made, all of the URL's hosts together: the URL's
  // connect_timeout (libpq's: whole seconds, at least 2; zero: none), else the options'.
  Millis connect_timeout{0};
  Millis command_timeout{0};
  Millis outage_limit{0};  // core/ride_through.h
  unsigned max_connections = 0;
  // The lock table, as SQL names it: an identifier, or schema.identifier; the shared holds and
  // waiters' table is <table>_holds, the fence sequence <table>_fence and the release channel
  // is the table's name.
  std::string table;
  std::string holds_table;
  std::string fence_sequence;
  std::string channel;
  // What no message may show of the URL, which libpq quotes when it cannot use a part of it:
  // the user information's parts, password= values, and what stands where a port would be in
  // a URL without user information ("admin:S3cret" may be a password whose '@' was forgotten).
  std::vector<std::string> secrets;
};

// `text` (a libpq message) with each of `secrets` shown as "***": quoted ones always, others
// when they are at least three characters long.
std::string without_secrets(std::string text, const std::vector<std::string>& secrets);

inline constexpr std::string_view kDefaultLockTable = "distlock_locks";

// Throws ConfigError naming the server for what libpq cannot parse (naming its reason), a
// distlock key with a bad value, or a lock_table that is not a plain SQL name.
PostgresSettings postgres_settings(std::string_view url, const Options& options);

// Whether `url` is one of the PostgreSQL backend's.
bool is_postgres_url(std::string_view url);

}  // namespace distlock::detail::postgres
