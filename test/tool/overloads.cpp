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
// CHECK: ::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(order));
// GUARD:{{\[\[}}                                ]] void ship({{\[\[}}             ]] long order, bool express) {
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}overloads.cpp"
// GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}overloads.cpp"
// GUARD-NEXT:                 "shipment", 1000
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}overloads.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}overloads.cpp"
// GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(order));
[[distlock::lock("shipment", 1000)]] void ship([[distlock::key]] long order, bool express) {
}
// CHECK: void ship(const char* order) { }
// CHECK-NOT: distlock_woven_guard_
void ship(const char* order) { }
