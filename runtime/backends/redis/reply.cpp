#include "backends/redis/reply.h"

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

}  // namespace distlock::detail::redis
