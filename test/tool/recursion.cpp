// A recursive locked function takes its own lock again on the same thread:
// reentrancy, so it neither deadlocks nor releases early.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-run %t.cpp %runtime -o %t.exe
// RUN: %gxx-syntax %t.cpp
// RUN: %t.exe | FileCheck %s

#include <cstdio>
#include <distlock/distlock.h>

// GUARD:int depth({{\[\[}}             ]] int tree, int level) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}recursion.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}recursion.cpp"
// GUARD-NEXT:                 "tree", 5s
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}recursion.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}recursion.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<int>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}recursion.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<int, ::distlock::woven::NoObject, decltype(tree), decltype(level)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}recursion.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(tree)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<int>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(tree)&&>(tree), static_cast<decltype(level)&&>(level));
[[distlock::lock("tree", 5s)]]
int depth([[distlock::key]] int tree, int level) {
  const distlock::Lease* held = distlock::current();
  std::printf("level %d holds %s fence %llu\n", level, held->name().c_str(),
              static_cast<unsigned long long>(held->fence()));
  return level == 0 ? 0 : 1 + depth(tree, level - 1);
}

int main() {
  // CHECK: level 2 holds tree:7 fence [[FENCE:[0-9]+]]
  // CHECK-NEXT: level 1 holds tree:7 fence [[FENCE]]
  // CHECK-NEXT: level 0 holds tree:7 fence [[FENCE]]
  // CHECK-NEXT: depth 2, held after return: no
  int result = depth(7, 2);
  std::printf("depth %d, held after return: %s\n", result,
              distlock::current() == nullptr ? "no" : "yes");
  return 0;
}
