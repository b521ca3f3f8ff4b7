// A function template is woven once, in its pattern; the key's type is
// checked when it is instantiated.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <string>

// CHECK: template <class Id>
// CHECK-NEXT: {{\[\[ +\]\]}} void refund({{\[\[ +\]\]}} const Id& id) {
// CHECK: ::distlock::woven::keys(id.value)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>({{.*}});{{$}}
// CHECK-NOT: distlock_woven_guard_
// GUARD:{{\[\[}}                            ]] void refund({{\[\[}}                      ]] const Id& id) {
// GUARD-NEXT:#line [[@LINE+13]] "{{.*}}function_template.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+11]] "{{.*}}function_template.cpp"
// GUARD-NEXT:                 "refund", 5s
// GUARD-NEXT:#line [[@LINE+9]] "{{.*}}function_template.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+7]] "{{.*}}function_template.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+5]] "{{.*}}function_template.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(id)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}function_template.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(id.value)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(id)&&>(id));
template <class Id>
[[distlock::lock("refund", 5s)]] void refund([[distlock::key("value")]] const Id& id) {
}

struct OrderId { std::string value; };
void use() { refund(OrderId{"A-1"}); }
