// The lock attribute on a lambda.
// RUN: not %weave %s -o %t.cpp -- -std=c++2b 2>&1 | FileCheck %s

// CHECK: on_lambda.cpp:[[@LINE+1]]:20: error: 'distlock::lock' cannot be woven into a lambda; declare a distlock::ScopedLock at the top of its body instead
auto refund = [] [[distlock::lock("refund", 1000)]] (int id) { return id; };
