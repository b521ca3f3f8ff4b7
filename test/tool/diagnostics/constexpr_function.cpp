// A constexpr function may run at compile time, where no lock exists.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

// CHECK: constexpr_function.cpp:[[@LINE+1]]:3: error: 'distlock::lock' on a constexpr function: a lock is taken at run time; remove constexpr or the attribute
[[distlock::lock("price", 1000)]] constexpr int price(int cents) { return cents; }
