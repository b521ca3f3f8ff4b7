// A function in a namespace, declared with the attribute and defined later
// with its key named differently: keys follow the parameter's position.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <cstdio>

#include <distlock/distlock.h>

namespace shop::billing {
[[distlock::lock("invoice", std::chrono::seconds(10))]]
void settle([[distlock::key]] long invoice);
}

// CHECK-LABEL: void shop::billing::settle(long number) {
// CHECK: ::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(number));
// GUARD:void shop::billing::settle(long number) {
// GUARD-NEXT:#line [[@LINE-7]] "{{.*}}namespace_function.cpp"
// GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
// GUARD-NEXT:#line [[@LINE-9]] "{{.*}}namespace_function.cpp"
// GUARD-NEXT:                 "invoice", std::chrono::seconds(10)
// GUARD-NEXT:#line [[@LINE-11]] "{{.*}}namespace_function.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}namespace_function.cpp"
// GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(number));
void shop::billing::settle(long number) {
  static_assert(__LINE__ == 32, "every line keeps its number");
  std::printf("%s\n", distlock::current()->name().c_str());
}

// LIVE: invoice:1042
int main() { shop::billing::settle(1042); }
