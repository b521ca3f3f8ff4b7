// A free function keyed on two parameters: the guard opens the body, on the
// line of its '{', and the attributes are blanked out.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <string>

// CHECK: #include <distlock/woven.h>
// CHECK-NEXT: #line 1 "{{.*}}free_function.cpp"

// CHECK: {{^\[\[ +\]\]$}}
[[distlock::lock("order", 30s)]]
// CHECK-NEXT: {{^}}int pay({{\[\[ +\]\]}} const std::string& user, {{\[\[ +\]\]}} int order_id, int amount) {
// GUARD:int pay({{\[\[}}             ]] const std::string& user, {{\[\[}}             ]] int order_id, int amount) {
// GUARD-NEXT:#line [[@LINE-3]] "{{.*}}free_function.cpp"
// GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
// GUARD-NEXT:#line [[@LINE-5]] "{{.*}}free_function.cpp"
// GUARD-NEXT:                 "order", 30s
// GUARD-NEXT:#line [[@LINE-7]] "{{.*}}free_function.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}free_function.cpp"
// GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(user, order_id));
int pay([[distlock::key]] const std::string& user, [[distlock::key]] int order_id, int amount) {
  static_assert(__LINE__ == 27, "every line keeps its number");
  return amount;
}
