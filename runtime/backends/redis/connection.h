// One blocking connection for commands: connected, authenticated and on the configured
// database. A connection that failed mid-exchange is broken (its stream may hold half a
// reply) and is never used again.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <hiredis/hiredis.h>

#include <distlock/duration.h>

#include "backends/redis/connection_settings.h"
#include "backends/redis/reply.h"

namespace distlock::detail {

class Connection {
 public:
  // Connects, authenticates and selects the database, all within connect_timeout. Throws
  // ServerError when the server cannot be reached or refuses AUTH or SELECT.
  explicit Connection(const ConnectionSettings& settings);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends one command and reads its reply. An error reply is returned, not thrown; a
  // failed or late exchange throws ServerError and breaks the connection.
  Reply command(std::span<const std::string_view> args);
  // Pipelining: queue several commands, then read their replies in order. The first
  // read_reply() sends the whole queue.
  void append(std::span<const std::string_view> args);
  Reply read_reply();

  // Shortens the wait for replies to `timeout` when that is below command_timeout, until
  // restore_command_timeout().
  void limit_command_timeout(Millis timeout);
  void restore_command_timeout();

  bool broken() const { return broken_; }
  const std::string& server() const { return settings_.server; }

 private:
  struct ContextFree {
    void operator()(redisContext* context) const { redisFree(context); }
  };

  void authenticate_and_select(std::chrono::steady_clock::time_point deadline);
  // `name` is the option the timeout comes from, for messages.
  void set_timeout(Millis timeout, std::string_view name);
  [[noreturn]] void fail(std::string_view doing, int error);

  const ConnectionSettings& settings_;
  std::unique_ptr<redisContext, ContextFree> context_;
  Millis timeout_{0};
  std::string_view timeout_name_;
  std::string last_command_;  // for messages: the reply of which command was late
  bool broken_ = false;
};

}  // namespace distlock::detail
