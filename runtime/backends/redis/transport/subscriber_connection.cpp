// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/subscriber_connection.h"

#include <poll.h>

#include <cerrno>
#include <cstring>

#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/wait_for.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

SubscriberConnection::SubscriberConnection(const ConnectionSettings& settings, Stream stream)
    : server_(settings.server), stream_(std::move(stream)), reader_(redisReaderCreate()) {
  if (!reader_) throw ServerError(server_, "cannot read replies: out of memory");
}

std::unique_ptr<SubscriberConnection> SubscriberConnection::open(const ConnectionSettings& settings,
                                                                 const Address& address,
                                                                 int stop_fd) {
  const auto deadline = SteadyClock::now() + settings.connect_timeout;
  const auto not_ready = [&] {
    return ServerError(settings.server,
                       "not ready within connect_timeout (" +
                           std::to_string(settings.connect_timeout.count()) + " ms)",
                       true);
  };
  Socket::Failure failure;
  std::optional<Stream> stream = Stream::connect(settings, address, deadline, failure, stop_fd);
  if (!stream) {
    if (failure.reason.empty()) return nullptr;  // stopped
    if (failure.timed_out) throw not_ready();
    throw ServerError(settings.server, "cannot connect: " + failure.reason);
  }
  std::unique_ptr<SubscriberConnection> connection(
      new SubscriberConnection(settings, std::move(*stream)));
  if (!settings.password) return connection;

  std::vector<std::string_view> auth{"AUTH"};
  if (settings.user) auth.emplace_back(*settings.user);
  auth.emplace_back(*settings.password);
  connection->send(auth);
  std::vector<Reply> replies;
  while (replies.empty()) {
    const short events = POLLIN | (connection->has_output() ? POLLOUT : 0);
    switch (wait_for(connection->fd(), events, deadline, stop_fd)) {
      case Waited::ready:
        break;
      case Waited::stopped:
        return nullptr;
      case Waited::timed_out:
        throw not_ready();
    }
    if (connection->has_output()) connection->flush();
    replies = connection->receive();
  }
  if (is_error(*replies.front()))
    throw ServerError(settings.server,
                      "authentication failed: " + describe_reply(*replies.front()));
  return connection;
}

void SubscriberConnection::send(std::span<const std::string_view> args) {
  output_ += encoder_.encode({args});
  flush();
}

void SubscriberConnection::flush() {
  const ssize_t written = stream_.write_now(output_);
  if (written < 0) fail("sending: " + stream_.error_text(errno));
  output_.erase(0, static_cast<std::size_t>(written));
  has_output_ = !output_.empty();
}

std::vector<Reply> SubscriberConnection::receive() {
  char buffer[kStreamReadSize];
  // Until the stream holds nothing that the caller's next poll() would miss.
  for (bool more = true; more;) {
    const ssize_t got = stream_.read_now(buffer, sizeof buffer);
    if (got == 0) fail("receiving: the server closed the connection");
    if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
      fail("receiving: " + stream_.error_text(errno));
    if (got > 0 &&
        redisReaderFeed(reader_.get(), buffer, static_cast<std::size_t>(got)) != REDIS_OK)
      fail("reading a reply: " + reason_text(reader_->errstr));
    more = got > 0 && stream_.holds_input();
  }
  std::vector<Reply> replies;
  for (;;) {
    void* reply = nullptr;
    if (redisReaderGetReply(reader_.get(), &reply) != REDIS_OK)
      fail("reading a reply: " + reason_text(reader_->errstr));
    if (reply == nullptr) return replies;
    replies.emplace_back(static_cast<redisReply*>(reply));
  }
}

void SubscriberConnection::fail(std::string reason) const {
  throw ServerError(server_, std::move(reason));
}

}  // namespace distlock::detail::redis
