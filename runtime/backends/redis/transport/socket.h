// SPDX-License-Identifier: Apache-2.0
// A connected socket to one server, non-blocking, owned: TCP (each address the host name
// resolves to, in turn) or a unix socket. TCP sockets send each write at once (TCP_NODELAY: a
// command is one small write) and probe an idle peer (keepalive: a server gone without a FIN
// is found).
#pragma once

#include <optional>
#include <string>

#include "backends/redis/transport/connection_settings.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

class Socket {
 public:
  // Why a connection could not be made, in words ("connection refused").
  struct Failure {
    std::string reason;
    bool timed_out = false;
  };

  // Connects to `address` by `deadline`. Nullopt with `failure` said when it cannot, or when
  // `stop_fd` (if not -1) becomes readable first (then `failure` is left empty).
  static std::optional<Socket> connect(const Address& address, SteadyClock::time_point deadline,
                                       Failure& failure, int stop_fd = -1);

  Socket(Socket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Socket& operator=(Socket&&) = delete;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  int fd() const { return fd_; }

 private:
  explicit Socket(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace distlock::detail::redis
