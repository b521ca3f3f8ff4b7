// A static member function.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <cstdio>

#include <distlock/distlock.h>

struct Ledger {
  // CHECK: static int close_day({{\[\[ +\]\]}} int day) {
  // CHECK: ::distlock::woven::keys(day));
  // GUARD:  {{\[\[}}                                   ]] static int close_day({{\[\[}}             ]] int day) {
  // GUARD-NEXT:#line [[@LINE+12]] "{{.*}}static_member.cpp"
  // GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
  // GUARD-NEXT:#line [[@LINE+10]] "{{.*}}static_member.cpp"
  // GUARD-NEXT:                   "ledger-day", 60000
  // GUARD-NEXT:#line [[@LINE+8]] "{{.*}}static_member.cpp"
  // GUARD-NEXT:); }();
  // GUARD-NEXT:#line [[@LINE+6]] "{{.*}}static_member.cpp"
  // GUARD-NEXT:static_assert(::distlock::woven::skip_fits<int>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
  // GUARD-NEXT:#line [[@LINE+4]] "{{.*}}static_member.cpp"
  // GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<int, ::distlock::woven::NoObject, decltype(day)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
  // GUARD-NEXT:#line [[@LINE+2]] "{{.*}}static_member.cpp"
  // GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(day)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<int>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(day)&&>(day));
  [[distlock::lock("ledger-day", 60000)]] static int close_day([[distlock::key]] int day) {
    std::printf("%s\n", distlock::current()->name().c_str());
    return day;
  }
};

// LIVE: ledger-day:31
int main() { return Ledger::close_day(31) == 31 ? 0 : 1; }
