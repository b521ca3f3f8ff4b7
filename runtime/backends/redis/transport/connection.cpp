// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/connection.h"

#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <optional>
#include <vector>

#include "backends/redis/transport/peer_closed.h"
#include "backends/redis/transport/server_error.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {
namespace {

// hiredis refuses timeouts whose milliseconds overflow an int.
constexpr Millis kMaxTimeout{INT_MAX / 2};

timeval to_timeval(Millis timeout) {
  const auto ms = std::clamp(timeout, Millis(1), kMaxTimeout).count();
  return timeval{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>(ms % 1000 * 1000)};
}

}  // namespace

Connection::Connection(const ConnectionSettings& settings, Address address,
                       std::uint64_t generation)
    : settings_(settings), address_(std::move(address)), generation_(generation) {
  const auto deadline = SteadyClock::now() + settings.connect_timeout;
  const timeval connect_timeout = to_timeval(settings.connect_timeout);
  errno = 0;
  context_.reset(
      address_.socket_path.empty()
          ? redisConnectWithTimeout(address_.host.c_str(), address_.port, connect_timeout)
          : redisConnectUnixWithTimeout(address_.socket_path.c_str(), connect_timeout));
  if (!context_) throw ServerError(settings.server, "cannot connect: out of memory");
  if (context_->err != 0) {
    const int error = errno;
    // With several servers behind one URL, say which one.
    std::string reason = "cannot connect" +
                         (settings.sentinel() ? " to " + address_.describe() : std::string()) +
                         ": " + reason_text(context_->errstr);
    if (is_timeout(error))
      reason += " (connect_timeout " + std::to_string(settings.connect_timeout.count()) + " ms)";
    throw ServerError(settings.server, std::move(reason), is_timeout(error));
  }
  authenticate_and_select(deadline);
  set_timeout(settings.command_timeout, "command_timeout");
}

void Connection::authenticate_and_select(SteadyClock::time_point deadline) {
  // Connecting and authenticating share one budget: each step gets what is left of it.
  const auto budget_left = [&] {
    const auto left = std::chrono::ceil<Millis>(deadline - SteadyClock::now());
    if (left <= Millis::zero())
      throw ServerError(settings_.server,
                        "not ready within connect_timeout (" +
                            std::to_string(settings_.connect_timeout.count()) + " ms)",
                        true);
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
  if (redisSetTimeout(context_.get(), to_timeval(timeout)) != REDIS_OK)
    fail("setting the socket timeout", errno);
  timeout_ = timeout;
  timeout_name_ = name;
}

Connection::CommandTimeoutLimit Connection::limit_command_timeout(Millis timeout) {
  if (timeout < settings_.command_timeout) set_timeout(timeout, "the lease's validity");
  return CommandTimeoutLimit(*this);
}

Connection::CommandTimeoutLimit::~CommandTimeoutLimit() {
  Connection& connection = connection_;
  if (connection.broken_ || connection.timeout_ == connection.settings_.command_timeout) return;
  // A connection whose timeout cannot be put back must not be reused: a destructor cannot
  // throw, so it is marked broken and the pool drops it.
  if (redisSetTimeout(connection.context_.get(),
                      to_timeval(connection.settings_.command_timeout)) != REDIS_OK) {
    connection.broken_ = true;
    return;
  }
  connection.timeout_ = connection.settings_.command_timeout;
  connection.timeout_name_ = "command_timeout";
}

Connection::~Connection() { abandon_unawaited(); }

bool Connection::owes_unawaited() const {
  return std::any_of(owed_.begin(), owed_.end(), [](const auto& handler) { return bool(handler); });
}

void Connection::read_owed() {
  while (!owed_.empty()) (void)read_one();
}

bool Connection::found_closed() {
  if (!broken_ && owed_.empty() && peer_closed(socket())) broken_ = true;
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
  int done = 0;
  errno = 0;
  while (done == 0)
    if (redisBufferWrite(context_.get(), &done) != REDIS_OK) fail("sending a command", errno);
  owed_.push_back(std::move(handler));
}

void Connection::queue(std::initializer_list<std::span<const std::string_view>> parts) {
  if (broken_) throw ServerError(settings_.server, "the connection broke earlier");
  const std::string_view command = encoder_.encode(parts);
  if (redisAppendFormattedCommand(context_.get(), command.data(), command.size()) != REDIS_OK)
    fail("queueing a command", errno);
  last_command_.clear();
  for (const auto part : parts) {
    if (part.empty()) continue;
    last_command_ = part.front();
    break;
  }
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
  void* reply = nullptr;
  errno = 0;
  if (redisGetReply(context_.get(), &reply) != REDIS_OK || reply == nullptr)
    fail("waiting for a reply", errno);
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
  broken_ = true;
  abandon_unawaited();
  // A socket timeout surfaces as EAGAIN from a blocking read or write.
  const bool timed_out = context_->err == REDIS_ERR_IO && is_timeout(error);
  std::string reason = timed_out ? "no reply to " + last_command_ + " within " +
                                       std::to_string(timeout_.count()) + " ms (" +
                                       std::string(timeout_name_) + ")"
                                 : std::string(doing) + ": " + reason_text(context_->errstr);
  throw ServerError(settings_.server, std::move(reason), timed_out);
}

}  // namespace distlock::detail::redis
