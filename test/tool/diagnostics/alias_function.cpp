// A function defined by an alias attribute has no body of its own: the body is its target's.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s --implicit-check-not=error:

extern "C" void apply() {}
// CHECK: alias_function.cpp:[[@LINE+1]]:3: error: 'alias_of_apply' is defined without a body of its own, which a lock could open; lock the function that has the body
[[distlock::lock("stock", 1000)]] void alias_of_apply() __attribute__((alias("apply")));
