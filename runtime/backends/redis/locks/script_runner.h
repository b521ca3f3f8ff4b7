// SPDX-License-Identifier: Apache-2.0
// Runs the lock scripts by digest (EVALSHA), sending the body again (EVAL) only when the
// server has lost its script cache (NOSCRIPT: a restart or SCRIPT FLUSH).
#pragma once

#include <array>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/redis/transport/connection.h"
#include "backends/redis/transport/reply.h"
#include "backends/redis/transport/shared_connection.h"

namespace distlock::detail::redis {

enum class Script {
  acquire,
  release,
  renew,
  acquire_write,
  acquire_read,
  withdraw_writer,
  acquire_permit,
  renew_shared,
  release_shared,
  acquire_fair,
  release_fair,
  withdraw_fair,
};
inline constexpr std::size_t kScriptCount = 12;

// One call: the script, its keys and arguments. They stay the caller's and must outlive the
// call.
struct ScriptCall {
  Script script;
  std::span<const std::string_view> keys;
  std::span<const std::string_view> args;
};

class ScriptRunner {
 public:
  // Loads the scripts over `connection` (SCRIPT LOAD) and keeps the digests the server
  // returns. Throws ServerError.
  explicit ScriptRunner(Connection& connection);

  // One call. Error replies of the script are returned; failed exchanges throw ServerError.
  Reply run(Connection& connection, const ScriptCall& call) const;
  // One call whose reply is read later (Connection::send_unawaited); a reply of NOSCRIPT sends
  // it again by EVAL the same way. `on_reply` gets the last reply, or nullptr when the
  // connection broke before it came. The call's texts are copied: they need not outlive it.
  // Throws ServerError when it cannot be sent; `on_reply` is then never called.
  void send_unawaited(Connection& connection, const ScriptCall& call,
                      std::function<void(const redisReply*)> on_reply) const;
  // The same two on the connection the lock commands share. There the EVAL after a NOSCRIPT goes
  // out before any reply read after the NOSCRIPT is handed out: a command that the same thread
  // sends once it has its reply goes out after the EVAL. run() waits by `caller_deadline` as
  // SharedConnection::command does (Unanswered).
  Reply run(SharedConnection& connection, const ScriptCall& call,
            SteadyClock::time_point caller_deadline = kNoCallerDeadline) const;
  void send_unawaited(SharedConnection& connection, const ScriptCall& call,
                      std::function<void(const redisReply*)> on_reply) const;
  // Many calls, pipelined: one round trip, two if the cache was lost.
  std::vector<Reply> run_all(Connection& connection, std::span<const ScriptCall> calls) const;

 private:
  std::array<std::string, kScriptCount> digests_;
};

}  // namespace distlock::detail::redis
