// Of two overloads only the annotated one is woven.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

// CHECK: void ship(int order) { }
void ship(int order) { }
// CHECK-NOT: distlock_woven_guard_
// CHECK: void ship({{\[\[ +\]\]}} long order, bool express) {
// CHECK: ::distlock::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::key_of(order));
[[distlock::lock("shipment", 1000)]] void ship([[distlock::key]] long order, bool express) {
}
// CHECK: void ship(const char* order) { }
// CHECK-NOT: distlock_woven_guard_
void ship(const char* order) { }
