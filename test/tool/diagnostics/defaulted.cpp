// A defaulted function has no body to lock.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

struct Receipt {
  // CHECK: defaulted.cpp:[[@LINE+1]]:5: error: 'distlock::lock' on a defaulted function: there is no body to lock; write the body or remove the attribute
  [[distlock::lock("receipt", 1000)]] Receipt& operator=(const Receipt&) = default;
};
