// A body that throws releases its lock on the way out.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %clangxx-syntax %t.cpp
// RUN: %t.exe | FileCheck %s

#include <cstdio>
#include <distlock/distlock.h>
#include <stdexcept>
#include <thread>

// GUARD:void charge({{\[\[}}             ]] int payment) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}throwing_body.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}throwing_body.cpp"
// GUARD-NEXT:                 "payment", 30s
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}throwing_body.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}throwing_body.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}throwing_body.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(payment)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}throwing_body.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(payment)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(payment)&&>(payment));
[[distlock::lock("payment", 30s)]]
void charge([[distlock::key]] int payment) {
  std::printf("charging %d under %s\n", payment, distlock::current()->name().c_str());
  throw std::runtime_error("card declined");
}

int main() {
  // CHECK: charging 9 under payment:9
  // CHECK-NEXT: caught: card declined
  // CHECK-NEXT: free for another thread: yes
  try {
    charge(9);
  } catch (const std::exception& error) {
    std::printf("caught: %s\n", error.what());
  }
  bool free = false;
  std::thread other([&] {
    free = distlock::default_client()
               .try_acquire(distlock::spec("payment", std::chrono::seconds(1)), 9)
               .has_value();
  });
  other.join();
  std::printf("free for another thread: %s\n", free ? "yes" : "no");
  return 0;
}
