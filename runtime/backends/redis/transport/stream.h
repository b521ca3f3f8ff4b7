// SPDX-License-Identifier: Apache-2.0
// The bytes to and from one server over a connected socket (socket.h). Its calls that wait do
// so by poll(), each until its own deadline, so that a blocked reader can be woken
// (shutdown()) and no socket option carries a timeout. The one place the connections read and
// write: the shared connection, the pooled ones and the subscriber's.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string_view>

#include "backends/redis/transport/socket.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

// What one read takes in at most: the replies of many lock commands, or many release messages.
inline constexpr std::size_t kStreamReadSize = std::size_t{16} * 1024;

class Stream {
 public:
  explicit Stream(Socket socket) : socket_(std::move(socket)) {}

  int fd() const { return socket_.fd(); }

  // Writes all of `bytes`, waiting for room until `deadline`. The errno that stopped it
  // (ETIMEDOUT at the deadline), if anything did.
  std::optional<int> write_all(std::string_view bytes, SteadyClock::time_point deadline);
  // Writes what the socket takes now: the count (maybe 0), or -1 with errno set.
  ssize_t write_now(std::string_view bytes);
  // Reads what has come, at least one byte, waiting until `deadline`: the count; 0 when the
  // server closed the connection; -1 with errno set (ETIMEDOUT at the deadline).
  ssize_t read_some(char* into, std::size_t size, SteadyClock::time_point deadline);
  // Reads what has come, without waiting: as read_some(), and -1 with EAGAIN when nothing has.
  ssize_t read_now(char* into, std::size_t size);
  // Whether the server closed the connection; only for a connection that owes no reply, whose
  // socket has nothing else to read.
  bool peer_closed() const;
  // Ends both directions: a reader waiting in read_some() returns at once, with 0.
  void shutdown();

 private:
  Socket socket_;
};

}  // namespace distlock::detail::redis
