// The lock attribute on a variable.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s
// RUN: not test -e %t.cpp

// CHECK: on_variable.cpp:[[@LINE+1]]:3: error: 'distlock::lock' applies to functions; put it on the function whose body must run under the lock
[[distlock::lock("counter", 1000)]] int counter = 0;
