// SPDX-License-Identifier: Apache-2.0
// A fair lock: "payout:<account>" is granted in the order its waiters arrived.
//
//   lock_kinds_fair [URL]     (default memory://)
//
// The main thread holds the lock; five waiters arrive one after another (each once the client
// counts it waiting), then the main thread releases, and each waiter records its turn. Exits 1
// when a waiter overtook one that arrived before it.
#include <distlock/distlock.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {
constexpr int kWaiters = 5;
std::mutex turns_mutex;
std::vector<int> turns;  // waiters in the order they were granted the lock
}  // namespace

[[distlock::lock("payout", 30s, distlock::fair)]]
void pay([[distlock::key]] const std::string& account, int waiter) {
  std::lock_guard<std::mutex> guard(turns_mutex);
  turns.push_back(waiter);
}

// Spins (yielding) until `count` callers of the client wait: a waiter counted there has asked
// the server and holds its place in the queue.
bool await_waiting(std::uint64_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (distlock::default_client().stats().waiting < count) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

int main(int argc, char** argv) {
  distlock::configure(argc > 1 ? argv[1] : "memory://");
  distlock::Lease held = distlock::default_client().acquire(
      distlock::spec("payout", std::chrono::seconds(30), distlock::fair), "acct-1");

  std::vector<std::thread> waiters;
  for (int waiter = 0; waiter < kWaiters; ++waiter) {
    waiters.emplace_back([waiter] { pay("acct-1", waiter); });
    if (!await_waiting(waiter + 1)) {
      std::printf("waiter %d never queued\n", waiter);
      return 1;
    }
  }
  held.release();
  for (auto& waiter : waiters) waiter.join();

  bool in_arrival_order = true;
  std::printf("payout:acct-1 granted to waiters, in turn:");
  for (int turn = 0; turn < kWaiters; ++turn) {
    std::printf(" %d", turns[turn]);
    in_arrival_order = in_arrival_order && turns[turn] == turn;
  }
  std::printf("\nin arrival order: %s\n", in_arrival_order ? "yes" : "no");
  return in_arrival_order ? 0 : 1;
}
