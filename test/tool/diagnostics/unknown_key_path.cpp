// Key paths are checked against the parameter's type.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

#include <string>
struct Customer { std::string email; std::string name() const { return email; } };
struct Order { int id = 0; Customer customer; };

// CHECK: unknown_key_path.cpp:[[@LINE+1]]:58: error: key path 'customer.mail' of parameter 'order': no member named 'mail' in 'Customer'
[[distlock::lock("order", 1000)]] void a([[distlock::key("customer.mail")]] const Order& order) {}
// CHECK: unknown_key_path.cpp:[[@LINE+1]]:58: error: key path 'id.value' of parameter 'order': 'int' has no member 'value': it is not a class
[[distlock::lock("order", 1000)]] void b([[distlock::key("id.value")]] const Order& order) {}
// CHECK: unknown_key_path.cpp:[[@LINE+1]]:58: error: key path 'customer.name' of parameter 'order': 'name' in 'Customer' is a member function; write "name()"
[[distlock::lock("order", 1000)]] void c([[distlock::key("customer.name")]] const Order& order) {}
// CHECK: unknown_key_path.cpp:[[@LINE+1]]:58: error: key path 'id()' of parameter 'order': 'id' in 'Order' is a field, not a member function; write "id" without "()"
[[distlock::lock("order", 1000)]] void d([[distlock::key("id()")]] const Order& order) {}
// CHECK: unknown_key_path.cpp:[[@LINE+1]]:58: error: the key path must be one plain string literal naming a field or const member function, such as "id", "customer.id" or "id()"
[[distlock::lock("order", 1000)]] void e([[distlock::key(id)]] const Order& order) {}
// CHECK: unknown_key_path.cpp:[[@LINE+1]]:58: error: 'a..b' is not a key path: write member names separated by '.', each optionally followed by '()'
[[distlock::lock("order", 1000)]] void f([[distlock::key("a..b")]] const Order& order) {}
