// Comments anywhere in an attribute are read past, as the compiler would.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <chrono>

struct Order { int id; };

// CHECK: {{^                                      }}"report", std::chrono::minutes{10}
// CHECK: ::distlock::woven::key_of(order.id));
// GUARD:void report({{\[\[}}                                      ]] const Order& order) {
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:                                             "report", std::chrono::minutes{10}
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(order.id));}
[[distlock /* ns */ :: lock /* type, ttl */ ("report", std::chrono::minutes{10})]]
void report([[distlock::key /* the order's */ ("id")]] const Order& order) {}

// CHECK: {{^                 }}"ledger", 1s{{$}}
// GUARD:void ledger() {
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:                 "ledger", 1s
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}comments_in_attributes.cpp"
// GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_);}
[[distlock::lock("ledger", 1s // ttl
)]]
void ledger() {}
