// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/topology/outage.h"

#include <algorithm>
#include <string>
#include <thread>

#include <distlock/log.h>

namespace distlock::detail::redis {
namespace {

constexpr Millis kFirstPause{50};
constexpr Millis kLongestPause{1000};

}  // namespace

bool Outage::pause_before_retry(SteadyClock::time_point deadline, std::string_view failure) {
  const auto now = SteadyClock::now();
  if (!began_) {
    if (limit_ <= Millis::zero() || now >= deadline) return false;
    began_ = now;
    pause_ = kFirstPause;
    log(LogLevel::warning, std::string(failure) + "; trying again for up to " +
                               std::to_string(limit_.count()) +
                               " ms (outage_limit) while the wait lasts");
  }
  const auto end = std::min(deadline, *began_ + limit_);
  if (now >= end) return false;
  std::this_thread::sleep_until(std::min(now + pause_, end));
  pause_ = std::min(pause_ * 2, kLongestPause);
  return true;
}

}  // namespace distlock::detail::redis
