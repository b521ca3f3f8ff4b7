// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/peer_closed.h"

#include <sys/socket.h>

#include <cerrno>

namespace distlock::detail::redis {

bool peer_closed(int socket) {
  char byte = 0;
  ssize_t n = 0;
  do {
    n = ::recv(socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  // 0: the peer's FIN came; an error other than "nothing to read yet": a reset.
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

}  // namespace distlock::detail::redis
