// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/wait_for.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace distlock::detail::redis {

Waited wait_for(int fd, short events, SteadyClock::time_point deadline, int stop_fd) {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - SteadyClock::now());
    // poll() takes an int of milliseconds: a long deadline is waited out in parts.
    const int timeout = static_cast<int>(std::clamp<long long>(left.count(), 0, 60'000));
    pollfd fds[] = {{fd, events, 0}, {stop_fd, POLLIN, 0}};
    const int ready = ::poll(fds, stop_fd >= 0 ? 2 : 1, timeout);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return Waited::ready;  // the call that follows meets the error and reports it
    }
    if (stop_fd >= 0 && fds[1].revents != 0) return Waited::stopped;
    if (fds[0].revents != 0) return Waited::ready;
    if (SteadyClock::now() >= deadline) return Waited::timed_out;
  }
}

}  // namespace distlock::detail::redis
