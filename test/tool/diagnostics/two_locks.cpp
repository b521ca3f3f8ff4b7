// A function takes one lock.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

// CHECK: two_locks.cpp:[[@LINE+3]]:3: error: a second 'distlock::lock' for 'transfer'; a function takes one lock: remove one
// CHECK: two_locks.cpp:[[@LINE+1]]:3: note: the first is here
[[distlock::lock("account", 1000)]]
[[distlock::lock("ledger", 1000)]]
void transfer() {}

struct Vault {
  [[distlock::lock("vault", 1000)]] void open();
};
// CHECK: two_locks.cpp:[[@LINE+2]]:3: error: a second 'distlock::lock' for 'Vault::open'
// CHECK: note: the first is here
[[distlock::lock("vault", 1000)]] void Vault::open() {}
