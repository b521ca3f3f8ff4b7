// SPDX-License-Identifier: Apache-2.0
// A semaphore: at most two holders of "export:<region>" at once, each with its own lease.
//
//   lock_kinds_semaphore [URL]     (default memory://)
//
// Two holders meet inside at once; then four workers call it together, and never more than two
// are inside. Exits 1 when either fails.
#include <distlock/distlock.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "meeting.h"

namespace {
constexpr int kPermits = 2;
constexpr int kWorkers = 4;
Meeting holders_meeting(kPermits);
std::atomic<bool> meeting{true};
std::atomic<int> holders_met{0};
std::atomic<int> inside{0};
std::atomic<int> most_inside{0};
}  // namespace

[[distlock::lock("export", 30s, distlock::permits(2))]]
void export_region([[distlock::key]] const std::string& region) {
  const int now_inside = ++inside;
  int most = most_inside;
  while (now_inside > most && !most_inside.compare_exchange_weak(most, now_inside)) {
  }
  if (meeting && holders_meeting.arrive_and_wait(std::chrono::seconds(10))) ++holders_met;
  --inside;
}

int main(int argc, char** argv) {
  distlock::configure(argc > 1 ? argv[1] : "memory://");
  std::vector<std::thread> threads;
  for (int i = 0; i < kPermits; ++i) threads.emplace_back([] { export_region("eu"); });
  for (auto& thread : threads) thread.join();
  threads.clear();

  meeting = false;
  for (int i = 0; i < kWorkers; ++i) {
    threads.emplace_back([] {
      for (int n = 0; n < 10; ++n) export_region("eu");
    });
  }
  for (auto& thread : threads) thread.join();

  std::printf("holders inside export:eu at once: %d of %d permits\n", holders_met.load(), kPermits);
  std::printf("most inside at once among %d workers: %d\n", kWorkers, most_inside.load());
  return holders_met == kPermits && most_inside == kPermits ? 0 : 1;
}
