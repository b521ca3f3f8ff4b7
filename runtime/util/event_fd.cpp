// SPDX-License-Identifier: Apache-2.0
#include "util/event_fd.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <distlock/error.h>

namespace distlock::detail {

EventFd::EventFd(const std::string& server) : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (fd_ < 0)
    throw BackendUnavailable("", server,
                             std::string("cannot create an eventfd: ") + std::strerror(errno));
}

EventFd::~EventFd() { close(fd_); }

void EventFd::signal() {
  const std::uint64_t one = 1;
  // Only fails when the counter is about to overflow, and then it is readable anyway.
  [[maybe_unused]] const auto written = ::write(fd_, &one, sizeof one);
}

void EventFd::drain() {
  std::uint64_t count = 0;
  // Non-blocking: fails with EAGAIN when nothing was signalled, which is fine.
  [[maybe_unused]] const auto read_bytes = ::read(fd_, &count, sizeof count);
}

}  // namespace distlock::detail
