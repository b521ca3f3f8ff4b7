// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/connection.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "backends/redis/transport/server_error.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {
namespace {

// The stream to `address`, by `deadline` (the caller's or connect_timeout's:
// core/step_deadline.h). Throws ServerError naming the server (and, with several servers behind
// one URL, which one).
Stream connect_stream(const ConnectionSettings& settings, const Address& address,
                      SteadyClock::time_point deadline, SteadyClock::time_point caller_deadline) {
  Socket::Failure failure;
  if (std::optional<Stream> stream = Stream::connect(settings, address, deadline, failure))
    return std::move(*stream);
  std::string reason = "cannot connect" +
                       (settings.sentinel() ? " to " + address.describe() : std::string()) + ": " +
                       failure.reason;
  if (failure.timed_out)
    reason +=
        " (" +
        what_ended_step(deadline, caller_deadline, "connect_timeout", settings.connect_timeout) +
        ")";
  throw ServerError(settings.server, std::move(reason), failure.timed_out);
}

}  // namespace

ServerError connecting_timed_out(const ConnectionSettings& settings, std::string_view doing,
                                 SteadyClock::time_point until,
                                 SteadyClock::time_point caller_deadline) {
  return ServerError(
      settings.server,
      std::string(doing) + " in time (" +
          what_ended_step(until, caller_deadline, "connect_timeout", settings.connect_timeout) +
          ")",
      true);
}

Connection::Connection(const ConnectionSettings& settings, Address address,
                       std::uint64_t generation, SteadyClock::time_point caller_deadline)
    : Connection(settings, std::move(address), generation,
                 step_deadline(caller_deadline, settings.connect_timeout), caller_deadline) {}

Connection::Connection(const ConnectionSettings& settings, Address address,
                       std::uint64_t generation, SteadyClock::time_point connected_by,
                       SteadyClock::time_point caller_deadline)
    : settings_(settings),
      address_(std::move(address)),
      generation_(generation),
      stream_(connect_stream(settings, address_, connected_by, caller_deadline)),
      reader_(redisReaderCreate()) {
  if (!reader_) throw ServerError(settings.server, "cannot read replies: out of memory");
  authenticate_and_select(connected_by, caller_deadline);
  set_timeout(settings.command_timeout, "command_timeout");
}

void Connection::authenticate_and_select(SteadyClock::time_point deadline,
                                         SteadyClock::time_point caller_deadline) {
  // Connecting and authenticating share one budget: each step gets what is left of it.
  const auto budget_left = [&] {
    const auto left = std::chrono::ceil<Millis>(deadline - SteadyClock::now());
    if (left <= Millis::zero())
      throw connecting_timed_out(settings_, "not ready", deadline, caller_deadline);
    return left;
  };

  if (settings_.password) {
    set_timeout(budget_left(), "connect_timeout");
    std::vector<std::string_view> args{"AUTH"};
    if (settings_.user) args.emplace_back(*settings_.user);
    args.emplace_back(*settings_.password);
    const Reply reply = command(args);
    if (is_error(*reply))
      throw ServerError::of_reply(settings_.server,
                                  "authentication failed: " + describe_reply(*reply), *reply);
  }
  if (settings_.db != 0) {
    set_timeout(budget_left(), "connect_timeout");
    const std::string db = std::to_string(settings_.db);
    const std::string_view args[] = {"SELECT", db};
    const Reply reply = command(args);
    if (is_error(*reply))
      throw ServerError::of_reply(
          settings_.server, "cannot select database " + db + ": " + describe_reply(*reply), *reply);
  }
}

void Connection::set_timeout(Millis timeout, std::string_view name) {
  timeout_ = timeout;
  timeout_name_ = name;
}

Connection::CommandTimeoutLimit Connection::limit_command_timeout(Millis timeout,
                                                                  std::string_view why) {
  if (timeout < settings_.command_timeout) set_timeout(timeout, why);
  return CommandTimeoutLimit(*this);
}

Connection::CommandTimeoutLimit Connection::limit_to_caller(
    SteadyClock::time_point caller_deadline) {
  if (caller_deadline == kNoCallerDeadline) return CommandTimeoutLimit(*this);
  const auto until = step_deadline(caller_deadline, settings_.command_timeout);
  return limit_command_timeout(
      std::max(std::chrono::ceil<Millis>(until - SteadyClock::now()), Millis{1}),
      "the caller's deadline");
}

Connection::CommandTimeoutLimit::~CommandTimeoutLimit() {
  connection_.set_timeout(connection_.settings_.command_timeout, "command_timeout");
}

Connection::~Connection() { abandon_unawaited(); }

bool Connection::owes_unawaited() const {
  return std::any_of(owed_.begin(), owed_.end(), [](const auto& handler) { return bool(handler); });
}

void Connection::read_owed() {
  while (!owed_.empty()) (void)read_one();
}

bool Connection::found_closed() {
  if (!broken_ && owed_.empty() && stream_.peer_closed()) broken_ = true;
  return broken_;
}

Reply Connection::command(std::span<const std::string_view> args) {
  append(args);
  return read_reply();
}

// One part: a braced list converts to the initializer_list overload before any other (list
// initialization prefers it), so this does not call itself.
void Connection::append(std::span<const std::string_view> args) { append({args}); }

void Connection::append(std::initializer_list<std::span<const std::string_view>> parts) {
  queue(parts);
  owed_.emplace_back();
}

void Connection::send_unawaited(std::initializer_list<std::span<const std::string_view>> parts,
                                ReplyHandler handler) {
  queue(parts);
  flush();
  owed_.push_back(std::move(handler));
}

void Connection::queue(std::initializer_list<std::span<const std::string_view>> parts) {
  if (broken_) throw ServerError(settings_.server, "the connection broke earlier");
  output_ += encoder_.encode(parts);
  last_command_.clear();
  for (const auto part : parts) {
    if (part.empty()) continue;
    last_command_ = part.front();
    break;
  }
}

void Connection::flush() {
  if (output_.empty()) return;
  if (const auto error = stream_.write_all(output_, SteadyClock::now() + timeout_))
    fail("sending a command", *error);
  output_.clear();
}

Reply Connection::read_reply() {
  while (true)
    if (std::optional<Reply> mine = read_one()) return std::move(*mine);
}

std::optional<Reply> Connection::read_one() {
  Reply reply = read_next();
  if (owed_.empty()) return reply;
  const ReplyHandler handler = std::move(owed_.front());
  owed_.pop_front();
  if (!handler) return reply;
  handler(*this, reply.get());
  return std::nullopt;
}

Reply Connection::read_next() {
  if (broken_) throw ServerError(settings_.server, "the connection broke earlier");
  flush();
  // The reply is due within the timeout, however many reads it takes.
  const auto deadline = SteadyClock::now() + timeout_;
  void* reply = nullptr;
  for (;;) {
    if (redisReaderGetReply(reader_.get(), &reply) != REDIS_OK)
      break_for("reading a reply: " + reason_text(reader_->errstr), false);
    if (reply != nullptr) break;
    char buffer[kStreamReadSize];
    const ssize_t got = stream_.read_some(buffer, sizeof buffer, deadline);
    if (got <= 0) fail("waiting for a reply", got == 0 ? 0 : errno);
    if (redisReaderFeed(reader_.get(), buffer, static_cast<std::size_t>(got)) != REDIS_OK)
      break_for("reading a reply: " + reason_text(reader_->errstr), false);
  }
  Reply owned(static_cast<redisReply*>(reply));
  if (is_error(*owned) && reply_text(*owned).starts_with("READONLY")) {
    // The master this connection was made for is a replica now: nothing written here would
    // count, so the connection goes and the caller asks where the master is.
    broken_ = true;
    abandon_unawaited();
    throw ServerError(settings_.server, address_.describe() +
                                            " answers as a replica (READONLY): the master has "
                                            "moved; " +
                                            describe_reply(*owned));
  }
  return owned;
}

void Connection::abandon_unawaited() {
  std::deque<ReplyHandler> lost;
  lost.swap(owed_);
  for (const auto& handler : lost)
    if (handler) handler(*this, nullptr);
}

void Connection::fail(std::string_view doing, int error) {
  const bool timed_out = is_timeout(error);
  break_for(timed_out
                ? "no reply to " + last_command_ + " within " + std::to_string(timeout_.count()) +
                      " ms (" + std::string(timeout_name_) + ")"
            : error == 0 ? std::string(doing) + ": the server closed the connection"
                         : std::string(doing) + ": " + stream_.error_text(error),
            timed_out);
}

void Connection::break_for(std::string reason, bool timed_out) {
  broken_ = true;
  abandon_unawaited();
  throw ServerError(settings_.server, std::move(reason), timed_out);
}

}  // namespace distlock::detail::redis
