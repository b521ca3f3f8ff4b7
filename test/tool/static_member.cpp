// A static member function.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <cstdio>

#include <distlock/distlock.h>

struct Ledger {
  // CHECK: static int close_day({{\[\[ +\]\]}} int day) {
  // CHECK: ::distlock::woven::key_of(day));
  // GUARD:  {{\[\[}}                                   ]] static int close_day({{\[\[}}             ]] int day) {
  // GUARD-NEXT:#line [[@LINE+8]] "{{.*}}static_member.cpp"
  // GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
  // GUARD-NEXT:#line [[@LINE+6]] "{{.*}}static_member.cpp"
  // GUARD-NEXT:                   "ledger-day", 60000
  // GUARD-NEXT:#line [[@LINE+4]] "{{.*}}static_member.cpp"
  // GUARD-NEXT:); }();
  // GUARD-NEXT:#line [[@LINE+2]] "{{.*}}static_member.cpp"
  // GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(day));
  [[distlock::lock("ledger-day", 60000)]] static int close_day([[distlock::key]] int day) {
    std::printf("%s\n", distlock::current()->name().c_str());
    return day;
  }
};

// LIVE: ledger-day:31
int main() { return Ledger::close_day(31) == 31 ? 0 : 1; }
