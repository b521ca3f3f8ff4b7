// SPDX-License-Identifier: Apache-2.0
// One blocking connection for commands: connected, authenticated and on the configured
// database. A connection that failed mid-exchange is broken (its stream may hold half a
// reply) and is never used again.
#pragma once

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <hiredis/hiredis.h>
#include <hiredis/read.h>

#include <distlock/duration.h>

#include "backends/redis/transport/command_encoder.h"
#include "backends/redis/transport/connection_settings.h"
#include "backends/redis/transport/reply.h"
#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/stream.h"
#include "core/step_deadline.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

// Whether an errno says a wait ran out: the stream's deadline (ETIMEDOUT), or the peer
// stopped answering.
inline bool is_timeout(int error) {
  return error == EAGAIN || error == EWOULDBLOCK || error == ETIMEDOUT;
}

// A step of connecting that did not end by `until`, the time step_deadline gave it for
// `caller_deadline` out of connect_timeout: "<doing> in time (<what ended it>)", a timeout.
ServerError connecting_timed_out(const ConnectionSettings& settings, std::string_view doing,
                                 SteadyClock::time_point until,
                                 SteadyClock::time_point caller_deadline);

class Connection {
 public:
  // Connects to `address`, authenticates and selects the database, all within
  // connect_timeout, or by `caller_deadline` when that comes first (core/step_deadline.h).
  // Throws ServerError when the server cannot be reached or refuses AUTH or SELECT.
  // `generation` is the master's (MasterLocator) when the address was read.
  Connection(const ConnectionSettings& settings, Address address, std::uint64_t generation = 0,
             SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  // Reads nothing: the send_unawaited() callers still owed a reply hear that it will not come
  // (a connection that goes is never drained by the thread that dropped it, which may be
  // the renewal thread while a partition makes every read wait command_timeout).
  ~Connection();

  // Sends one command and reads its reply. An error reply is returned, not thrown; a
  // failed or late exchange throws ServerError and breaks the connection.
  Reply command(std::span<const std::string_view> args);
  // Pipelining: queue several commands, then read their replies in order. The first
  // read_reply() sends the whole queue.
  void append(std::span<const std::string_view> args);
  // Queues the command whose arguments are the parts' arguments, in order.
  void append(std::initializer_list<std::span<const std::string_view>> parts);
  // The next reply to a command of this caller's. Replies owed to send_unawaited() callers
  // that come first are read and handed over on the way.
  Reply read_reply();

  // Gets the reply to a command sent by send_unawaited(): the reply, or nullptr when the
  // connection broke first. Runs on the thread that reads it; must not throw. It may send
  // another command by send_unawaited().
  using ReplyHandler = std::function<void(Connection&, const redisReply*)>;
  // Sends one command now and returns without waiting for its reply, which the next
  // read_reply() or read_owed() reads first and hands to `handler` (nullptr when the
  // connection breaks or closes first). Throws
  // ServerError, breaking the connection, when the command cannot be written; `handler` is
  // then never called.
  void send_unawaited(std::initializer_list<std::span<const std::string_view>> parts,
                      ReplyHandler handler);

  // Whether replies are owed to send_unawaited() callers (on an idle connection, nobody else
  // reads them: read_owed() does).
  bool owes_unawaited() const;
  // Reads every reply owed. Throws ServerError, breaking the connection, as read_reply().
  void read_owed();
  // Whether the connection is broken, or the server closed it while it owed no reply
  // (peer_closed.h), which breaks it.
  bool found_closed();

  // While alive, replies are awaited at most `timeout` when that is below command_timeout;
  // `why` (a literal: it is kept) names what set it, for the message of a reply that did not
  // come in time.
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
  [[nodiscard]] CommandTimeoutLimit limit_command_timeout(
      Millis timeout, std::string_view why = "the lease's validity");
  // The same for a step begun now for a caller with `caller_deadline` (core/step_deadline.h):
  // replies are awaited no longer than the caller waits, and a second at least; without a
  // caller's deadline (kNoCallerDeadline), command_timeout.
  [[nodiscard]] CommandTimeoutLimit limit_to_caller(SteadyClock::time_point caller_deadline);

  bool broken() const { return broken_; }
  const Address& address() const { return address_; }
  std::uint64_t generation() const { return generation_; }
  const std::string& server() const { return settings_.server; }
  // The stream, for SharedConnection: once connected, it does its own reading and writing.
  Stream& stream() { return stream_; }

 private:
  struct ReaderFree {
    void operator()(redisReader* reader) const { redisReaderFree(reader); }
  };

  Connection(const ConnectionSettings& settings, Address address, std::uint64_t generation,
             SteadyClock::time_point connected_by, SteadyClock::time_point caller_deadline);
  void authenticate_and_select(SteadyClock::time_point deadline,
                               SteadyClock::time_point caller_deadline);
  // `name` is the option the timeout comes from, for messages.
  void set_timeout(Millis timeout, std::string_view name);
  // Breaks the connection for the errno `error` met while `doing` (0: the server closed the
  // connection; a timeout: no reply in time).
  [[noreturn]] void fail(std::string_view doing, int error);
  // Breaks the connection for `reason`: the replies still owed to send_unawaited() callers are
  // lost. Throws ServerError.
  [[noreturn]] void break_for(std::string reason, bool timed_out);
  // Writes what append() queued, within the command timeout.
  void flush();
  void queue(std::initializer_list<std::span<const std::string_view>> parts);
  // The next reply on the stream, whoever it is owed to.
  Reply read_next();
  // The next reply: returned when it is owed to read_reply()'s caller, else handed to its
  // send_unawaited() caller (nullopt).
  std::optional<Reply> read_one();
  // Tells the send_unawaited() callers still owed a reply that it will not come.
  void abandon_unawaited();

  const ConnectionSettings& settings_;
  const Address address_;
  const std::uint64_t generation_;
  Stream stream_;
  std::unique_ptr<redisReader, ReaderFree> reader_;
  std::string output_;  // commands queued by append(), written by the next read
  CommandEncoder encoder_;
  Millis timeout_{0};
  std::string_view timeout_name_;
  std::string last_command_;  // for messages: the reply of which command was late
  // One entry per reply on its way, in the order they will come: an empty handler for a
  // reply read_reply() returns, the send_unawaited() caller's otherwise.
  std::deque<ReplyHandler> owed_;
  bool broken_ = false;
};

}  // namespace distlock::detail::redis
