// SPDX-License-Identifier: Apache-2.0
// The oldest Redis the scripts run on, and the check a backend makes once, when it first
// connects: an older server would fail every grant with a bare "syntax error" from inside a
// script, where the user needs to hear which server is too old and what it takes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <hiredis/hiredis.h>

namespace distlock::detail::redis {

class Connection;

struct RedisVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;

  friend bool operator<(const RedisVersion& a, const RedisVersion& b) {
    if (a.major != b.major) return a.major < b.major;
    if (a.minor != b.minor) return a.minor < b.minor;
    return a.patch < b.patch;
  }
};

// SET ... GET (the fence) and ZADD ... GT (a shared hold's renewal) came with Redis 6.2.
inline constexpr RedisVersion kOldestRedis{6, 2, 0};

// "7.0.15" as a version; nullopt for anything else.
std::optional<RedisVersion> parse_redis_version(std::string_view text);

// The version a server names in its answer to "HELLO 2" ("7.0.15"); empty when it names none,
// or refused.
std::string version_named(const redisReply& hello_reply);

// Why a server that gave `hello_reply` to "HELLO 2" cannot run distlock's scripts; nullopt if
// it can, or if it does not say (a server that speaks the protocol without naming a version
// is left to the scripts).
std::optional<std::string> unsupported_version(const redisReply& hello_reply);

// Asks the server its version (HELLO, which Redis lets every ACL user send) and throws ServerError,
// naming the server, if it is older than kOldestRedis.
void require_supported_version(Connection& connection);

}  // namespace distlock::detail::redis
