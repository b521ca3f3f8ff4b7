// SPDX-License-Identifier: Apache-2.0
// The pauses between an acquisition's tries while etcd is unavailable: 100 ms, doubling up to a
// second, so a leader elected within one is found soon and a long outage is not hammered.
#pragma once

#include <algorithm>
#include <chrono>

#include <distlock/duration.h>

namespace distlock::detail::etcd {

class RetryPause {
 public:
  Millis next() {
    const Millis pause = pause_;
    pause_ = std::min(pause_ * 2, kLongest);
    return pause;
  }

 private:
  static constexpr Millis kLongest{1000};
  Millis pause_{100};
};

}  // namespace distlock::detail::etcd
