// SPDX-License-Identifier: Apache-2.0
// Owning handles on hiredis replies, and what the backend needs to read from them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <hiredis/hiredis.h>

namespace distlock::detail::redis {

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

inline bool is_error(const redisReply& reply) { return reply.type == REDIS_REPLY_ERROR; }

// The text of a string, status or error reply; empty for other types.
inline std::string_view reply_text(const redisReply& reply) {
  switch (reply.type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
      return {reply.str, reply.len};
    default:
      return {};
  }
}

// A reply as a message may show it: the server's error text, or its type and value.
std::string describe_reply(const redisReply& reply);

// A cluster node's answer that a key lives elsewhere: "MOVED <slot> <host>:<port>" (the
// slot has moved) or "ASK <slot> <host>:<port>" (while the slot migrates, for this command).
struct Redirect {
  bool ask = false;
  int slot = 0;
  std::string host;
  std::uint16_t port = 0;
};
std::optional<Redirect> redirect_of(const redisReply& reply);

}  // namespace distlock::detail::redis
