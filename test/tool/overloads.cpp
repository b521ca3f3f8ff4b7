// Of two overloads only the annotated one is woven.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

// CHECK: void ship(int order) { }
void ship(int order) { }
// CHECK-NOT: distlock_woven_guard_
// CHECK: void ship({{\[\[ +\]\]}} long order, bool express) {
// CHECK: ::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(order));
// GUARD:{{\[\[}}                                ]] void ship({{\[\[}}             ]] long order, bool express) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}overloads.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}overloads.cpp"
// GUARD-NEXT:                 "shipment", 1000
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}overloads.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}overloads.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}overloads.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(order), decltype(express)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}overloads.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(order)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(order)&&>(order), static_cast<decltype(express)&&>(express));
[[distlock::lock("shipment", 1000)]] void ship([[distlock::key]] long order, bool express) {
}
// CHECK: void ship(const char* order) { }
// CHECK-NOT: distlock_woven_guard_
void ship(const char* order) { }
