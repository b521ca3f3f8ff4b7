// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/socket.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "backends/redis/transport/host_lookup.h"
#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/wait_for.h"

namespace distlock::detail::redis {
namespace {

// An idle TCP connection is probed after 15 s, then every 5 s, three times.
constexpr int kKeepAliveIdleSeconds = 15;
constexpr int kKeepAliveIntervalSeconds = 5;
constexpr int kKeepAliveProbes = 3;

void set_tcp_options(int fd) {
  const int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &kKeepAliveIdleSeconds, sizeof kKeepAliveIdleSeconds);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &kKeepAliveIntervalSeconds,
             sizeof kKeepAliveIntervalSeconds);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &kKeepAliveProbes, sizeof kKeepAliveProbes);
}

enum class Connected { yes, no, stopped };

// Connects the non-blocking `fd` to `to` by `deadline`; on `no`, `failure` says why.
Connected connect_one(int fd, const sockaddr* to, socklen_t length,
                      SteadyClock::time_point deadline, int stop_fd, Socket::Failure& failure) {
  if (::connect(fd, to, length) == 0) return Connected::yes;
  if (errno != EINPROGRESS) {
    failure = {reason_text(std::strerror(errno)), false};
    return Connected::no;
  }
  switch (wait_for(fd, POLLOUT, deadline, stop_fd)) {
    case Waited::ready:
      break;
    case Waited::stopped:
      return Connected::stopped;
    case Waited::timed_out:
      failure = {"timed out", true};
      return Connected::no;
  }
  int error = 0;
  socklen_t error_length = sizeof error;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &error_length) != 0) error = errno;
  if (error == 0) return Connected::yes;
  failure = {reason_text(std::strerror(error)), false};
  return Connected::no;
}

}  // namespace

Socket::~Socket() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<Socket> Socket::connect(const Address& address, SteadyClock::time_point deadline,
                                      Failure& failure, int stop_fd) {
  failure = {};
  if (!address.socket_path.empty()) {
    sockaddr_un to{};
    to.sun_family = AF_UNIX;
    if (address.socket_path.size() >= sizeof to.sun_path) {
      failure = {"the socket path is too long", false};
      return std::nullopt;
    }
    std::memcpy(to.sun_path, address.socket_path.c_str(), address.socket_path.size() + 1);
    Socket socket(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (socket.fd_ < 0) {
      failure = {reason_text(std::strerror(errno)), false};
      return std::nullopt;
    }
    switch (connect_one(socket.fd_, reinterpret_cast<const sockaddr*>(&to), sizeof to, deadline,
                        stop_fd, failure)) {
      case Connected::yes:
        return socket;
      case Connected::no:
      case Connected::stopped:
        return std::nullopt;
    }
  }

  // The lookup is a step of connecting: it ends by the same deadline.
  HostLookup lookup = look_up(address.host, address.port, deadline, stop_fd);
  switch (lookup.outcome) {
    case HostLookup::Outcome::found:
      break;
    case HostLookup::Outcome::stopped:
      return std::nullopt;
    case HostLookup::Outcome::failed:
    case HostLookup::Outcome::timed_out:
      failure = {std::move(lookup.failure), lookup.outcome == HostLookup::Outcome::timed_out};
      return std::nullopt;
  }
  for (const addrinfo* candidate = lookup.addresses.get(); candidate != nullptr;
       candidate = candidate->ai_next) {
    Socket socket(::socket(candidate->ai_family,
                           candidate->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                           candidate->ai_protocol));
    if (socket.fd_ < 0) {
      failure = {reason_text(std::strerror(errno)), false};
      continue;
    }
    switch (connect_one(socket.fd_, candidate->ai_addr, candidate->ai_addrlen, deadline, stop_fd,
                        failure)) {
      case Connected::yes:
        set_tcp_options(socket.fd_);
        return socket;
      case Connected::stopped:
        return std::nullopt;
      case Connected::no:
        if (failure.timed_out) return std::nullopt;
        break;
    }
  }
  return std::nullopt;
}

}  // namespace distlock::detail::redis
