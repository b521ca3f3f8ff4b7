// A free function keyed on two parameters: the guard opens the body, on the
// line of its '{', and the attributes are blanked out.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <string>

// CHECK: #include <distlock/distlock.h>
// CHECK-NEXT: #line 1 "{{.*}}free_function.cpp"

// CHECK: {{^\[\[ +\]\]$}}
[[distlock::lock("order", 30s)]]
// CHECK-NEXT: {{^}}int pay({{\[\[ +\]\]}} const std::string& user, {{\[\[ +\]\]}} int order_id, int amount) {
int pay([[distlock::key]] const std::string& user, [[distlock::key]] int order_id, int amount) {
// CHECK-NEXT: #line [[@LINE-3]] "{{.*}}free_function.cpp"
// CHECK-NEXT: static constexpr ::distlock::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::spec(
// CHECK-NEXT: #line [[@LINE-5]] "{{.*}}free_function.cpp"
// CHECK-NEXT: {{^                 }}"order", 30s
// CHECK-NEXT: #line [[@LINE-7]] "{{.*}}free_function.cpp"
// CHECK-NEXT: ); }();
// CHECK-NEXT: #line [[@LINE-7]] "{{.*}}free_function.cpp"
// CHECK-NEXT: ::distlock::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::key_of(user, order_id));
  static_assert(__LINE__ == 25, "every line keeps its number");
  return amount;
}
