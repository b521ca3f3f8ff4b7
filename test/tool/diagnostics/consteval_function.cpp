// A consteval function runs only at compile time.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

// CHECK: consteval_function.cpp:[[@LINE+1]]:3: error: 'distlock::lock' on a consteval function: a lock is taken at run time; remove consteval or the attribute
[[distlock::lock("price", 1000)]] consteval int price(int cents) { return cents; }
