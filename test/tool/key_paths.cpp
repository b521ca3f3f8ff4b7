// Key paths: a field, a nested field, a const member function, through a
// pointer, and through a base class.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <string>

struct Entity { long id = 0; };
struct Customer : Entity { std::string email; };
struct Order {
  Customer customer;
  int number = 0;
  std::string code() const { return "O-" + std::to_string(number); }
};

// CHECK: ::distlock::key_of(order.customer.email, same.code(), previous->customer.id, order_again.number));
[[distlock::lock("order", 30s)]]
void amend([[distlock::key("customer.email")]] const Order& order,
           [[distlock::key("code()")]] const Order& same,
           [[distlock::key("customer.id")]] const Order* previous,
           [[distlock::key("number")]] Order& order_again) {}
