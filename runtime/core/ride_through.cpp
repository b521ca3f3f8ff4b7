// SPDX-License-Identifier: Apache-2.0
#include "core/ride_through.h"

#include <algorithm>
#include <random>
#include <string>
#include <thread>

#include <distlock/log.h>

namespace distlock::detail {
namespace {

constexpr Millis kFirstPause{50};
constexpr Millis kLongestPause{1000};

// A pause drawn from the upper half of `pause`.
Millis jittered(Millis pause) {
  thread_local std::minstd_rand random(std::random_device{}());
  const auto half = pause.count() / 2;
  return Millis(pause.count() - std::uniform_int_distribution<Millis::rep>(0, half)(random));
}

}  // namespace

RideThrough::RideThrough(Millis outage_limit) : limit_(outage_limit) {}

SteadyClock::time_point RideThrough::ends_at(SteadyClock::time_point deadline) const {
  if (deadline != SteadyClock::time_point::max()) return deadline;
  return spell_began_.value_or(SteadyClock::now()) + limit_;
}

std::optional<SteadyClock::time_point> RideThrough::next_try(SteadyClock::time_point deadline,
                                                             std::string_view failure) {
  const auto now = SteadyClock::now();
  const auto end = ends_at(deadline);
  if (limit_ <= Millis::zero() || now >= end) return std::nullopt;
  if (!spell_began_) {
    spell_began_ = now;
    pause_ = kFirstPause;
    log(LogLevel::warning,
        std::string(failure) + "; riding it through: trying again " +
            (deadline == SteadyClock::time_point::max()
                 ? "for up to " + std::to_string(limit_.count()) + " ms (outage_limit)"
                 : std::string("while the wait lasts")));
  }
  const auto at = std::min(now + jittered(pause_), end);
  pause_ = std::min(pause_ * 2, kLongestPause);
  return at;
}

bool RideThrough::pause_before_retry(SteadyClock::time_point deadline, std::string_view failure) {
  const auto at = next_try(deadline, failure);
  if (!at) return false;
  std::this_thread::sleep_until(*at);
  return true;
}

}  // namespace distlock::detail
