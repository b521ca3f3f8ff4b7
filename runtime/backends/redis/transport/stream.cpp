// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/stream.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include "backends/redis/transport/wait_for.h"

namespace distlock::detail::redis {

std::optional<int> Stream::write_all(std::string_view bytes, SteadyClock::time_point deadline) {
  while (!bytes.empty()) {
    const ssize_t written = write_now(bytes);
    if (written < 0) return errno;
    bytes.remove_prefix(static_cast<std::size_t>(written));
    if (bytes.empty()) break;
    if (wait_for(fd(), POLLOUT, deadline) == Waited::timed_out) return ETIMEDOUT;
  }
  return std::nullopt;
}

ssize_t Stream::write_now(std::string_view bytes) {
  for (;;) {
    const ssize_t written = ::send(fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (written >= 0) return written;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    return -1;
  }
}

ssize_t Stream::read_some(char* into, std::size_t size, SteadyClock::time_point deadline) {
  for (;;) {
    const ssize_t got = read_now(into, size);
    if (got >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return got;
    if (wait_for(fd(), POLLIN, deadline) == Waited::timed_out) {
      errno = ETIMEDOUT;
      return -1;
    }
  }
}

ssize_t Stream::read_now(char* into, std::size_t size) {
  for (;;) {
    const ssize_t got = ::recv(fd(), into, size, 0);
    if (got >= 0 || errno != EINTR) return got;
  }
}

bool Stream::peer_closed() const {
  char byte = 0;
  ssize_t got = 0;
  do {
    got = ::recv(fd(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  } while (got < 0 && errno == EINTR);
  // 0: the peer's FIN came; an error other than "nothing to read yet": a reset.
  return got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

void Stream::shutdown() { ::shutdown(fd(), SHUT_RDWR); }

}  // namespace distlock::detail::redis
