#include "backends/redis/server_error.h"

#include <cctype>

namespace distlock::detail::redis {

std::string reason_text(const char* text) {
  std::string reason(text);
  if (!reason.empty())
    reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
  return reason;
}

ServerError::ServerError(const std::string& server, std::string reason, bool timed_out)
    : BackendUnavailable("", server, std::move(reason)), timed_out_(timed_out) {}

Redirected::Redirected(const std::string& server, Redirect redirect)
    : ServerError(server, std::string(redirect.ask ? "ASK" : "MOVED") + " to " + redirect.host +
                              ":" + std::to_string(redirect.port) + " (slot " +
                              std::to_string(redirect.slot) + ")"),
      redirect_(std::move(redirect)) {}

BackendUnavailable ServerError::for_lock(std::string_view lock) const {
  return BackendUnavailable(std::string(lock), server(), reason());
}

}  // namespace distlock::detail::redis
