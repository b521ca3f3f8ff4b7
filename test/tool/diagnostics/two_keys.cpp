// A parameter is one key: a second key attribute on it, on the same declaration or on
// another declaration of the function, is an error at the later one, with a note at the
// first.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s --implicit-check-not=error:

struct Order { int id = 0; };

// CHECK: two_keys.cpp:[[@LINE+2]]:64: error: a second 'distlock::key' on parameter 'order' of 'pay'; a parameter is one key: remove one
// CHECK: two_keys.cpp:[[@LINE+1]]:46: note: the first is here
[[distlock::lock("order", 1000)]] void pay([[distlock::key]] [[distlock::key("id")]] const Order& order) {}

void ship([[distlock::key("id")]] const Order& order);
// CHECK: two_keys.cpp:[[@LINE+2]]:47: error: a second 'distlock::key' on parameter 'shipped' of 'ship'; a parameter is one key: remove one
// CHECK: two_keys.cpp:[[@LINE-2]]:13: note: the first is here
[[distlock::lock("order", 1000)]] void ship([[distlock::key("id")]] const Order& shipped) {}
