// SPDX-License-Identifier: Apache-2.0
#include "stop_signals.h"

#include <cerrno>
#include <chrono>
#include <ctime>

namespace distlock::cli {

StopSignals::StopSignals() {
  sigemptyset(&stopping_);
  sigaddset(&stopping_, SIGINT);
  sigaddset(&stopping_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopping_, &previous_);
}

StopSignals::~StopSignals() {
  // Taken here, not delivered later: the loop it stopped is over, and the default action
  // would end the process with a signal's exit status instead of the command's.
  const timespec no_wait{};
  while (sigtimedwait(&stopping_, nullptr, &no_wait) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

bool StopSignals::wait(Millis timeout) const {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    timespec wait_for{};
    wait_for.tv_sec = static_cast<time_t>(left.count() / 1'000'000'000);
    wait_for.tv_nsec = static_cast<long>(left.count() % 1'000'000'000);
    if (sigtimedwait(&stopping_, nullptr, &wait_for) > 0) return true;
    if (errno == EAGAIN) return false;
    // EINTR: another signal came; wait for what is left.
  }
}

}  // namespace distlock::cli
