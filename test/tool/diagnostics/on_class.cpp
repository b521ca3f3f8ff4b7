// The lock attribute on a class.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

// CHECK: on_class.cpp:[[@LINE+1]]:10: error: 'distlock::lock' applies to functions
struct [[distlock::lock("account", 1000)]] Account {};
