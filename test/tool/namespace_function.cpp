// A function in a namespace, declared with the attribute and defined later
// with its key named differently: keys follow the parameter's position.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

namespace shop::billing {
[[distlock::lock("invoice", std::chrono::seconds(10))]]
void settle([[distlock::key]] long invoice);
}

// CHECK-LABEL: void shop::billing::settle(long number) {
// CHECK: ::distlock::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::key_of(number));
void shop::billing::settle(long number) {
  static_assert(__LINE__ == 16, "every line keeps its number");
}
