// A constructor: the guard opens its body, so member initializers run before
// the lock is taken.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <cstdio>

#include <distlock/distlock.h>

struct Session {
  // CHECK: Session({{\[\[ +\]\]}} int user) : user_(user) {
  // CHECK: ::distlock::woven::keys(user));
  // GUARD:  {{\[\[}}                              ]] Session({{\[\[}}             ]] int user) : user_(user) {
  // GUARD-NEXT:#line [[@LINE+10]] "{{.*}}constructor.cpp"
  // GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
  // GUARD-NEXT:#line [[@LINE+8]] "{{.*}}constructor.cpp"
  // GUARD-NEXT:                   "session", 10s
  // GUARD-NEXT:#line [[@LINE+6]] "{{.*}}constructor.cpp"
  // GUARD-NEXT:); }();
  // GUARD-NEXT:#line [[@LINE+4]] "{{.*}}constructor.cpp"
  // GUARD-NEXT:static_assert(::distlock::woven::raises_when_busy(distlock_woven_lock_), "on_busy needs a result to return, and a constructor, a destructor or a deduced return type has none: remove on_busy");
  // GUARD-NEXT:#line [[@LINE+2]] "{{.*}}constructor.cpp"
  // GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(user));
  [[distlock::lock("session", 10s)]] Session([[distlock::key]] int user) : user_(user) {
    std::printf("%s after user_ = %d\n", distlock::current()->name().c_str(), user_);
  }
  int user_;
};

// LIVE: session:5 after user_ = 5
int main() { Session session(5); }
