// SPDX-License-Identifier: Apache-2.0
#include "handoff.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace distlock::bench {

std::vector<double> handoff_micros(Client& holder, Client& waiter, const LockSpec& lock,
                                   int samples) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> micros;
  micros.reserve(static_cast<std::size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    Lease held = holder.acquire(lock, "handoff");
    const std::uint64_t held_fence = held.fence();
    const auto waiting_before = waiter.stats().waiting;
    Clock::time_point granted_at;
    std::uint64_t granted_fence = 0;
    std::thread next([&] {
      Lease got = waiter.acquire(lock, "handoff");
      granted_at = Clock::now();
      granted_fence = got.fence();
      got.release();
    });
    // Outside the timed part: the waiter has found the lock held and sleeps.
    while (waiter.stats().waiting == waiting_before)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    const auto released_at = Clock::now();
    held.release();
    next.join();
    if (granted_fence <= held_fence) throw std::runtime_error("a handoff's fence did not increase");
    micros.push_back(std::chrono::duration<double, std::micro>(granted_at - released_at).count());
  }
  return micros;
}

void report_handoffs(const std::string& url, int samples, double round_trip_us) {
  auto holder = Client::connect(url);
  auto waiter = Client::connect(url);
  const auto lock = spec("handoff", std::chrono::seconds(30), wait(std::chrono::seconds(30)));
  (void)handoff_micros(*holder, *waiter, lock, 5);
  auto micros = handoff_micros(*holder, *waiter, lock, samples);
  std::sort(micros.begin(), micros.end());
  const double p50 = micros[micros.size() / 2];
  const double p90 = micros[micros.size() * 9 / 10];
  std::printf(
      "handoff (release() to the waiter granted, %d samples): p50 %.0f us = %.1f round trips, "
      "p90 %.0f us = %.1f round trips (a round trip back to back: %.0f us)\n",
      samples, p50, p50 / round_trip_us, p90, p90 / round_trip_us, round_trip_us);
}

}  // namespace distlock::bench
