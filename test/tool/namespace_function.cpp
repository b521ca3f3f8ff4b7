// A function in a namespace, declared with the attribute and defined later
// with its key named differently: keys follow the parameter's position.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <cstdio>

#include <distlock/distlock.h>

namespace shop::billing {
[[distlock::lock("invoice", std::chrono::seconds(10))]]
void settle([[distlock::key]] long invoice);
}

// CHECK-LABEL: void shop::billing::settle(long number) {
// CHECK: ::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(number));
// GUARD:void shop::billing::settle(long number) {
// GUARD-NEXT:#line [[@LINE-7]] "{{.*}}namespace_function.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE-9]] "{{.*}}namespace_function.cpp"
// GUARD-NEXT:                 "invoice", std::chrono::seconds(10)
// GUARD-NEXT:#line [[@LINE-11]] "{{.*}}namespace_function.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE-13]] "{{.*}}namespace_function.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE-15]] "{{.*}}namespace_function.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(number)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}namespace_function.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(number)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(number)&&>(number));
void shop::billing::settle(long number) {
  static_assert(__LINE__ == 35, "every line keeps its number");
  std::printf("%s\n", distlock::current()->name().c_str());
}

// LIVE: invoice:1042
int main() { shop::billing::settle(1042); }
