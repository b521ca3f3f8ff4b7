// SPDX-License-Identifier: Apache-2.0
// per_key: each key parameter names its own lock, and all are taken in lock-name order.
//
//   lock_kinds_per_key [URL]     (default memory://)
//
// Two threads transfer between the same two accounts in opposite directions. Taken in the order
// of the arguments, the two locks would deadlock; per_key takes "account:alice" before
// "account:bob" either way. Exits 1 when a balance is off (a lost update) or a transfer held
// fewer than both locks.
#include <distlock/distlock.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <string>
#include <thread>

namespace {
constexpr int kTransfers = 100;
std::map<std::string, int> balances{{"alice", 1000}, {"bob", 1000}};  // guarded by the locks
std::atomic<int> transfers_under_both_locks{0};
}  // namespace

[[distlock::lock("account", 30s, distlock::per_key)]]
void transfer([[distlock::key]] const std::string& from, [[distlock::key]] const std::string& to,
              int amount) {
  if (distlock::current_leases().size() == 2) ++transfers_under_both_locks;
  // Read, let the other thread run, write: without the locks, updates are lost here.
  const int from_balance = balances.at(from);
  std::this_thread::yield();
  balances.at(from) = from_balance - amount;
  const int to_balance = balances.at(to);
  std::this_thread::yield();
  balances.at(to) = to_balance + amount;
}

int main(int argc, char** argv) {
  distlock::configure(argc > 1 ? argv[1] : "memory://");
  std::thread alice_pays([] {
    for (int n = 0; n < kTransfers; ++n) transfer("alice", "bob", 1);
  });
  std::thread bob_pays([] {
    for (int n = 0; n < kTransfers; ++n) transfer("bob", "alice", 2);
  });
  alice_pays.join();
  bob_pays.join();

  const int alice = balances.at("alice");
  const int bob = balances.at("bob");
  const int alice_expected = 1000 - kTransfers * 1 + kTransfers * 2;
  const int bob_expected = 1000 + kTransfers * 1 - kTransfers * 2;
  std::printf("transfers under both locks: %d of %d\n", transfers_under_both_locks.load(),
              2 * kTransfers);
  std::printf("balances: alice %d (expected %d), bob %d (expected %d)\n", alice, alice_expected,
              bob, bob_expected);
  return alice == alice_expected && bob == bob_expected &&
                 transfers_under_both_locks == 2 * kTransfers
             ? 0
             : 1;
}
