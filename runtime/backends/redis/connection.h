// One blocking connection for commands: connected, authenticated and on the configured
// database. A connection that failed mid-exchange is broken (its stream may hold half a
// reply) and is never used again.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <hiredis/hiredis.h>

#include <distlock/duration.h>

#include "backends/redis/command_encoder.h"
#include "backends/redis/connection_settings.h"
#include "backends/redis/reply.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

class Connection {
 public:
  // Connects to `address`, authenticates and selects the database, all within
  // connect_timeout. Throws ServerError when the server cannot be reached or refuses AUTH or
  // SELECT. `generation` is the master's (MasterLocator) when the address was read.
  Connection(const ConnectionSettings& settings, Address address, std::uint64_t generation = 0);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends one command and reads its reply. An error reply is returned, not thrown; a
  // failed or late exchange throws ServerError and breaks the connection.
  Reply command(std::span<const std::string_view> args);
  // Pipelining: queue several commands, then read their replies in order. The first
  // read_reply() sends the whole queue.
  void append(std::span<const std::string_view> args);
  // Queues the command whose arguments are the parts' arguments, in order.
  void append(std::initializer_list<std::span<const std::string_view>> parts);
  Reply read_reply();

  // While alive, replies are awaited at most `timeout` when that is below command_timeout.
  class CommandTimeoutLimit {
   public:
    CommandTimeoutLimit(const CommandTimeoutLimit&) = delete;
    CommandTimeoutLimit& operator=(const CommandTimeoutLimit&) = delete;
    ~CommandTimeoutLimit();

   private:
    friend class Connection;
    explicit CommandTimeoutLimit(Connection& connection) : connection_(connection) {}
    Connection& connection_;
  };
  [[nodiscard]] CommandTimeoutLimit limit_command_timeout(Millis timeout);

  bool broken() const { return broken_; }
  const Address& address() const { return address_; }
  std::uint64_t generation() const { return generation_; }
  const std::string& server() const { return settings_.server; }

 private:
  struct ContextFree {
    void operator()(redisContext* context) const { redisFree(context); }
  };

  void authenticate_and_select(SteadyClock::time_point deadline);
  // `name` is the option the timeout comes from, for messages.
  void set_timeout(Millis timeout, std::string_view name);
  [[noreturn]] void fail(std::string_view doing, int error);

  const ConnectionSettings& settings_;
  const Address address_;
  const std::uint64_t generation_;
  std::unique_ptr<redisContext, ContextFree> context_;
  CommandEncoder encoder_;
  Millis timeout_{0};
  std::string_view timeout_name_;
  std::string last_command_;  // for messages: the reply of which command was late
  bool broken_ = false;
};

}  // namespace distlock::detail::redis
