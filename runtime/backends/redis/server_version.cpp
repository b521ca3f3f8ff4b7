#include "backends/redis/server_version.h"

#include <charconv>

#include "backends/redis/connection.h"
#include "backends/redis/reply.h"
#include "backends/redis/server_error.h"

namespace distlock::detail::redis {
namespace {

std::string text_of(const RedisVersion& version) {
  return std::to_string(version.major) + '.' + std::to_string(version.minor) + '.' +
         std::to_string(version.patch);
}

// The number at the front of `text`, which then starts after it and the '.' that follows.
std::optional<int> take_part(std::string_view& text, bool last) {
  int part = 0;
  const char* const end = text.data() + text.size();
  const auto [after, error] = std::from_chars(text.data(), end, part);
  if (error != std::errc() || after == text.data()) return std::nullopt;
  if (last ? after != end : (after == end || *after != '.')) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(after - text.data()) + (last ? 0 : 1));
  return part;
}

}  // namespace

std::optional<RedisVersion> parse_redis_version(std::string_view text) {
  const auto major = take_part(text, false);
  const auto minor = major ? take_part(text, false) : std::nullopt;
  const auto patch = minor ? take_part(text, true) : std::nullopt;
  if (!patch) return std::nullopt;
  return RedisVersion{*major, *minor, *patch};
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
  // RESP2's answer: server, redis, version, 7.0.15, proto, 2, ...
  if (hello_reply.type != REDIS_REPLY_ARRAY) return std::nullopt;
  for (std::size_t i = 0; i + 1 < hello_reply.elements; i += 2) {
    if (reply_text(*hello_reply.element[i]) != "version") continue;
    const std::string_view text = reply_text(*hello_reply.element[i + 1]);
    const auto version = parse_redis_version(text);
    if (!version || !(*version < kOldestRedis)) return std::nullopt;
    return "the server is Redis " + std::string(text) + "; " + needed;
  }
  return std::nullopt;
}

void require_supported_version(Connection& connection) {
  const std::string_view hello[] = {"HELLO", "2"};
  const Reply reply = connection.command(hello);
  if (const auto reason = unsupported_version(*reply))
    throw ServerError(connection.server(), *reason);
}

}  // namespace distlock::detail::redis
