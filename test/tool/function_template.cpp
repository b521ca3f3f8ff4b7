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
// CHECK: ::distlock::woven::key_of(id.value));
// CHECK-NOT: distlock_woven_guard_
// GUARD:{{\[\[}}                            ]] void refund({{\[\[}}                      ]] const Id& id) {
// GUARD-NEXT:#line [[@LINE+9]] "{{.*}}function_template.cpp"
// GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
// GUARD-NEXT:#line [[@LINE+7]] "{{.*}}function_template.cpp"
// GUARD-NEXT:                 "refund", 5s
// GUARD-NEXT:#line [[@LINE+5]] "{{.*}}function_template.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}function_template.cpp"
// GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(id.value));
template <class Id>
[[distlock::lock("refund", 5s)]] void refund([[distlock::key("value")]] const Id& id) {
}

struct OrderId { std::string value; };
void use() { refund(OrderId{"A-1"}); }
