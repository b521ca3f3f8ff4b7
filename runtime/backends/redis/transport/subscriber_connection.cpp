// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/subscriber_connection.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "backends/redis/transport/server_error.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {
namespace {

int poll_timeout_ms(SteadyClock::time_point deadline) {
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 60'000));
}

}  // namespace

SubscriberConnection::SubscriberConnection(const ConnectionSettings& settings,
                                           redisContext* context)
    : server_(settings.server), context_(context) {
  if (!context_) throw ServerError(server_, "cannot connect: out of memory");
  if (context_->err != 0)
    throw ServerError(server_, "cannot connect: " + reason_text(context_->errstr));
}

std::unique_ptr<SubscriberConnection> SubscriberConnection::open(const ConnectionSettings& settings,
                                                                 const Address& address,
                                                                 int stop_fd) {
  const auto deadline = SteadyClock::now() + settings.connect_timeout;
  const bool tcp = address.socket_path.empty();
  std::unique_ptr<SubscriberConnection> connection(new SubscriberConnection(
      settings, tcp ? redisConnectNonBlock(address.host.c_str(), address.port)
                    : redisConnectUnixNonBlock(address.socket_path.c_str())));
  // False when stopped; throws once the connect budget is spent.
  const auto await = [&](short events) {
    switch (connection->wait(events, stop_fd, deadline)) {
      case Ready::yes:
        return true;
      case Ready::stopped:
        return false;
      case Ready::timed_out:
        break;
    }
    throw ServerError(settings.server,
                      "not ready within connect_timeout (" +
                          std::to_string(settings.connect_timeout.count()) + " ms)",
                      true);
  };

  if (!await(POLLOUT)) return nullptr;
  connection->check_connected();
  // A peer that vanished without a FIN would otherwise keep a dead subscription forever.
  if (tcp) redisEnableKeepAlive(connection->context_.get());

  if (settings.password) {
    std::vector<std::string_view> auth{"AUTH"};
    if (settings.user) auth.emplace_back(*settings.user);
    auth.emplace_back(*settings.password);
    connection->send(auth);
    std::vector<Reply> replies;
    while (replies.empty()) {
      if (!await(POLLIN | (connection->has_output() ? POLLOUT : 0))) return nullptr;
      if (connection->has_output()) connection->flush();
      replies = connection->receive();
    }
    if (is_error(*replies.front()))
      throw ServerError(settings.server,
                        "authentication failed: " + describe_reply(*replies.front()));
  }
  return connection;
}

SubscriberConnection::Ready SubscriberConnection::wait(short events, int stop_fd,
                                                       SteadyClock::time_point deadline) const {
  for (;;) {
    pollfd fds[] = {{context_->fd, events, 0}, {stop_fd, POLLIN, 0}};
    const int ready = poll(fds, 2, poll_timeout_ms(deadline));
    if (ready < 0 && errno != EINTR)
      throw ServerError(server_, "poll failed: " + reason_text(std::strerror(errno)));
    if (fds[1].revents != 0) return Ready::stopped;
    if (fds[0].revents != 0) return Ready::yes;
    if (SteadyClock::now() >= deadline) return Ready::timed_out;
  }
}

void SubscriberConnection::check_connected() const {
  int error = 0;
  socklen_t length = sizeof error;
  if (getsockopt(context_->fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
  if (error != 0)
    throw ServerError(server_, "cannot connect: " + reason_text(std::strerror(error)));
}

void SubscriberConnection::send(std::span<const std::string_view> args) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  for (const auto arg : args) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  if (redisAppendCommandArgv(context_.get(), static_cast<int>(args.size()), argv.data(),
                             lengths.data()) != REDIS_OK)
    fail("queueing a command");
  flush();
}

void SubscriberConnection::flush() {
  int done = 0;
  if (redisBufferWrite(context_.get(), &done) != REDIS_OK) fail("sending");
  has_output_ = done == 0;
}

std::vector<Reply> SubscriberConnection::receive() {
  if (redisBufferRead(context_.get()) != REDIS_OK) fail("receiving");
  std::vector<Reply> replies;
  for (;;) {
    void* reply = nullptr;
    if (redisGetReplyFromReader(context_.get(), &reply) != REDIS_OK) fail("reading a reply");
    if (reply == nullptr) return replies;
    replies.emplace_back(static_cast<redisReply*>(reply));
  }
}

void SubscriberConnection::fail(std::string_view doing) const {
  throw ServerError(server_, std::string(doing) + ": " + reason_text(context_->errstr));
}

}  // namespace distlock::detail::redis
