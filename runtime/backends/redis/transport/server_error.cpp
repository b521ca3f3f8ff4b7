// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/server_error.h"

#include "core/ride_through.h"

#include <algorithm>
#include <cctype>
#include <iterator>

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

ServerError ServerError::refusal(const std::string& server, std::string reason) {
  ServerError error(server, std::move(reason));
  error.refused_ = true;
  return error;
}

ServerError ServerError::of_reply(const std::string& server, std::string reason,
                                  const redisReply& reply) {
  static constexpr std::string_view kNotYet[] = {
      "LOADING", "READONLY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "BUSY", "NOREPLICAS"};
  const std::string_view text = is_error(reply) ? reply_text(reply) : std::string_view();
  const bool not_yet = std::any_of(std::begin(kNotYet), std::end(kNotYet), [&](auto code) {
    return text.starts_with(code) && (text.size() == code.size() || text[code.size()] == ' ');
  });
  return not_yet ? ServerError(server, std::move(reason)) : refusal(server, std::move(reason));
}

BackendUnavailable ServerError::for_lock(std::string_view lock) const {
  return BackendUnavailable(std::string(lock), server(), reason());
}

void ServerError::throw_for_lock(std::string_view lock) const {
  if (refused_) throw Refused(for_lock(lock));
  throw TransientUnavailable(for_lock(lock));
}

}  // namespace distlock::detail::redis
