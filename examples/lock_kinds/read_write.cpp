// SPDX-License-Identifier: Apache-2.0
// A read-write lock: readers share "report:<id>", a writer holds it alone.
//
//   lock_kinds_read_write [URL]     (default memory://)
//
// Three readers meet inside the read lock at once; then readers and writers run together, and
// no write overlaps a read or another write. Exits 1 when either fails.
#include <distlock/distlock.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "meeting.h"

namespace {
constexpr int kReaders = 3;
Meeting readers_meeting(kReaders);
std::atomic<bool> meeting{true};
std::atomic<int> readers_met{0};
std::atomic<int> readers_inside{0};
std::atomic<int> writers_inside{0};
std::atomic<int> overlaps{0};
}  // namespace

[[distlock::lock("report", 30s, distlock::read)]]
void show([[distlock::key]] int report_id) {
  ++readers_inside;
  if (writers_inside > 0) ++overlaps;
  if (meeting && readers_meeting.arrive_and_wait(std::chrono::seconds(10))) ++readers_met;
  --readers_inside;
}

[[distlock::lock("report", 30s, distlock::write)]]
void edit([[distlock::key]] int report_id) {
  if (++writers_inside > 1 || readers_inside > 0) ++overlaps;
  --writers_inside;
}

int main(int argc, char** argv) {
  distlock::configure(argc > 1 ? argv[1] : "memory://");
  std::vector<std::thread> threads;
  for (int i = 0; i < kReaders; ++i) threads.emplace_back([] { show(7); });
  for (auto& thread : threads) thread.join();
  threads.clear();

  meeting = false;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([] {
      for (int n = 0; n < 20; ++n) edit(7);
    });
    threads.emplace_back([] {
      for (int n = 0; n < 20; ++n) show(7);
    });
  }
  for (auto& thread : threads) thread.join();

  std::printf("readers inside report:7 at once: %d of %d\n", readers_met.load(), kReaders);
  std::printf("writes overlapping another hold: %d\n", overlaps.load());
  return readers_met == kReaders && overlaps == 0 ? 0 : 1;
}
