// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/server_version.h"

#include "backends/redis/transport/connection.h"
#include "backends/redis/transport/reply.h"
#include "backends/redis/transport/server_error.h"
#include "util/decimal.h"

namespace distlock::detail::redis {
namespace {

std::string text_of(const RedisVersion& version) {
  return std::to_string(version.major) + '.' + std::to_string(version.minor) + '.' +
         std::to_string(version.patch);
}

}  // namespace

std::optional<RedisVersion> parse_redis_version(std::string_view text) {
  const auto first_dot = text.find('.');
  const auto second_dot =
      first_dot == std::string_view::npos ? first_dot : text.find('.', first_dot + 1);
  if (second_dot == std::string_view::npos) return std::nullopt;
  const auto major = parse_decimal<int>(text.substr(0, first_dot));
  const auto minor = parse_decimal<int>(text.substr(first_dot + 1, second_dot - first_dot - 1));
  const auto patch = parse_decimal<int>(text.substr(second_dot + 1));
  if (!major || !minor || !patch) return std::nullopt;
  return RedisVersion{*major, *minor, *patch};
}

std::string version_named(const redisReply& hello_reply) {
  // RESP2's answer: server, redis, version, 7.0.15, proto, 2, ...
  if (hello_reply.type != REDIS_REPLY_ARRAY) return {};
  for (std::size_t i = 0; i + 1 < hello_reply.elements; i += 2)
    if (reply_text(*hello_reply.element[i]) == "version")
      return std::string(reply_text(*hello_reply.element[i + 1]));
  return {};
}

std::optional<std::string> unsupported_version(const redisReply& hello_reply) {
  const std::string needed = "distlock needs Redis " + text_of(kOldestRedis) +
                             " or later (its scripts use SET ... GET and ZADD ... GT)";
  if (is_error(hello_reply)) {
    // HELLO came with Redis 6.0; NOPERM and the like say nothing about the version.
    if (reply_text(hello_reply).starts_with("ERR unknown command"))
      return "the server does not know HELLO (Redis before 6.0); " + needed;
    return std::nullopt;
  }
  const std::string text = version_named(hello_reply);
  const auto version = parse_redis_version(text);
  if (!version || !(*version < kOldestRedis)) return std::nullopt;
  return "the server is Redis " + text + "; " + needed;
}

void require_supported_version(Connection& connection) {
  const std::string_view hello[] = {"HELLO", "2"};
  const Reply reply = connection.command(hello);
  if (const auto reason = unsupported_version(*reply))
    throw ServerError(connection.server(), *reason);
}

}  // namespace distlock::detail::redis
