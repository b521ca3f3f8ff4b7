// SPDX-License-Identifier: Apache-2.0
#include "handoff.h"

#include <chrono>
#include <cstdint>
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

}  // namespace distlock::bench
