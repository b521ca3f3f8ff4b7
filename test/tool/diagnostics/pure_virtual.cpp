// A pure virtual function has no body to lock, and locks none of its overriders.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

struct Store {
  // CHECK: pure_virtual.cpp:[[@LINE+1]]:5: error: 'distlock::lock' on the pure virtual function 'Store::save': it has no body to lock, and its overriders are not locked by it; put the attribute on each overrider
  [[distlock::lock("store", 1000)]] virtual void save([[distlock::key]] int id) = 0;
};
