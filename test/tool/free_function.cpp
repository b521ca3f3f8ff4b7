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
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE-5]] "{{.*}}free_function.cpp"
// GUARD-NEXT:                 "order", 30s
// GUARD-NEXT:#line [[@LINE-7]] "{{.*}}free_function.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE-9]] "{{.*}}free_function.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<int>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE-11]] "{{.*}}free_function.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<int, ::distlock::woven::NoObject, decltype(user), decltype(order_id), decltype(amount)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}free_function.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(user, order_id)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<int>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(user)&&>(user), static_cast<decltype(order_id)&&>(order_id), static_cast<decltype(amount)&&>(amount));
int pay([[distlock::key]] const std::string& user, [[distlock::key]] int order_id, int amount) {
  static_assert(__LINE__ == 31, "every line keeps its number");
  return amount;
}
