// A key path may end in a member function only if it is const and callable without arguments:
// the key is read from the parameter without changing it.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s --implicit-check-not=error:

struct Order {
  int id();
  int code(int) const;
  int shard(int = 0) const;
  static int region();
  const Order* parent() const;
};

// CHECK: getter_misfits.cpp:[[@LINE+1]]:58: error: key path 'id()' of parameter 'order': 'Order::id' must be a const member function callable without arguments to key a lock
[[distlock::lock("order", 1000)]] void a([[distlock::key("id()")]] Order& order) {}
// CHECK: getter_misfits.cpp:[[@LINE+1]]:58: error: key path 'code()' of parameter 'order': 'Order::code' must be a const member function callable without arguments to key a lock
[[distlock::lock("order", 1000)]] void b([[distlock::key("code()")]] const Order& order) {}
// CHECK: getter_misfits.cpp:[[@LINE+1]]:58: error: key path 'parent().id()' of parameter 'order': 'Order::id' must be a const member function callable without arguments to key a lock
[[distlock::lock("order", 1000)]] void c([[distlock::key("parent().id()")]] const Order& order) {}
// Default arguments and static members are callable so: no finding.
[[distlock::lock("order", 1000)]] void d([[distlock::key("shard()")]] const Order& order) {}
[[distlock::lock("order", 1000)]] void e([[distlock::key("region()")]] const Order& order) {}
