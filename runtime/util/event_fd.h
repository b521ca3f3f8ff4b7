// SPDX-License-Identifier: Apache-2.0
// A Linux eventfd: lets other threads wake a thread that sits in poll().
#pragma once

#include <string>

namespace distlock::detail {

class EventFd {
 public:
  // Throws BackendUnavailable naming `server` when the system has no descriptor to spare.
  explicit EventFd(const std::string& server);
  EventFd(const EventFd&) = delete;
  EventFd& operator=(const EventFd&) = delete;
  ~EventFd();

  int fd() const { return fd_; }
  // Makes fd() readable.
  void signal();
  // Makes fd() unreadable until the next signal().
  void drain();

 private:
  int fd_;
};

}  // namespace distlock::detail
