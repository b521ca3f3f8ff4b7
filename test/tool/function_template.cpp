// A function template is woven once, in its pattern; the key's type is
// checked when it is instantiated.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <string>

// CHECK: template <class Id>
// CHECK-NEXT: {{\[\[ +\]\]}} void refund({{\[\[ +\]\]}} const Id& id) {
// CHECK: ::distlock::key_of(id.value));
// CHECK-NOT: distlock_woven_guard_
template <class Id>
[[distlock::lock("refund", 5s)]] void refund([[distlock::key("value")]] const Id& id) {
}

struct OrderId { std::string value; };
void use() { refund(OrderId{"A-1"}); }
