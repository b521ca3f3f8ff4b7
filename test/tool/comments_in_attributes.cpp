// Comments anywhere in an attribute are read past, as the compiler would.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <chrono>

struct Order { int id; };

// CHECK: {{^                                      }}"report", std::chrono::minutes{10}
// CHECK: ::distlock::key_of(order.id));
[[distlock /* ns */ :: lock /* type, ttl */ ("report", std::chrono::minutes{10})]]
void report([[distlock::key /* the order's */ ("id")]] const Order& order) {}

// CHECK: {{^                 }}"ledger", 1s{{$}}
[[distlock::lock("ledger", 1s // ttl
)]]
void ledger() {}
