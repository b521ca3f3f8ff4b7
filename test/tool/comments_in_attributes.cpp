// Comments anywhere in an attribute are read past, as the compiler would.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <chrono>

struct Order { int id; };

// CHECK: {{^                                      }}"report", std::chrono::minutes{10}
// CHECK: ::distlock::woven::keys(order.id));
// GUARD:void report({{\[\[}}                                      ]] const Order& order) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:                                             "report", std::chrono::minutes{10}
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(order)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(order.id)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(order)&&>(order));}
[[distlock /* ns */ :: lock /* type, ttl */ ("report", std::chrono::minutes{10})]]
void report([[distlock::key /* the order's */ ("id")]] const Order& order) {}

// CHECK: {{^                 }}"ledger", 1s{{$}}
// GUARD:void ledger() {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:                 "ledger", 1s
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys()); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object);}
[[distlock::lock("ledger", 1s // ttl
)]]
void ledger() {}
