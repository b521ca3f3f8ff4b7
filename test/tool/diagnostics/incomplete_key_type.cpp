// A key path is checked against the parameter's type, which must be complete where the
// function is defined; a key on the parameter itself is left to distlock::to_key.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s --implicit-check-not=error:

struct Order;
struct Customer;
struct Invoice { Customer* customer; };

// CHECK: incomplete_key_type.cpp:[[@LINE+1]]:58: error: key path 'id' of parameter 'order': 'Order' is incomplete here; include its definition
[[distlock::lock("order", 1000)]] void a([[distlock::key("id")]] const Order& order) {}
// CHECK: incomplete_key_type.cpp:[[@LINE+1]]:58: error: key path 'customer.id' of parameter 'invoice': 'Customer' is incomplete here; include its definition
[[distlock::lock("order", 1000)]] void b([[distlock::key("customer.id")]] const Invoice& invoice) {}
// Without a path the key is the compiler's to check: a to_key(const Order&) declared for the
// incomplete type is enough.
[[distlock::lock("order", 1000)]] void c([[distlock::key]] const Order& order) {}
