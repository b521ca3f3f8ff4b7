// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/reply.h"

#include <charconv>

namespace distlock::detail::redis {

std::string describe_reply(const redisReply& reply) {
  switch (reply.type) {
    case REDIS_REPLY_ERROR:
      return std::string(reply_text(reply));
    case REDIS_REPLY_STRING:
      return "string \"" + std::string(reply_text(reply)) + "\"";
    case REDIS_REPLY_STATUS:
      return "status " + std::string(reply_text(reply));
    case REDIS_REPLY_INTEGER:
      return "integer " + std::to_string(reply.integer);
    case REDIS_REPLY_NIL:
      return "nil";
    case REDIS_REPLY_ARRAY:
      return "array of " + std::to_string(reply.elements);
    default:
      return "reply of type " + std::to_string(reply.type);
  }
}

std::optional<Redirect> redirect_of(const redisReply& reply) {
  if (!is_error(reply)) return std::nullopt;
  std::string_view text = reply_text(reply);
  Redirect redirect;
  if (text.starts_with("MOVED ")) {
    text.remove_prefix(6);
  } else if (text.starts_with("ASK ")) {
    redirect.ask = true;
    text.remove_prefix(4);
  } else {
    return std::nullopt;
  }
  const auto space = text.find(' ');
  const auto colon = text.rfind(':');
  if (space == std::string_view::npos || colon == std::string_view::npos || colon < space)
    return std::nullopt;
  const auto slot = text.substr(0, space);
  const auto port = text.substr(colon + 1);
  if (std::from_chars(slot.data(), slot.data() + slot.size(), redirect.slot).ec != std::errc() ||
      std::from_chars(port.data(), port.data() + port.size(), redirect.port).ec != std::errc())
    return std::nullopt;
  redirect.host = std::string(text.substr(space + 1, colon - space - 1));
  return redirect;
}

}  // namespace distlock::detail::redis
