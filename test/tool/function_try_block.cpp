// A function-try-block: the guard opens the try block, so the lock is
// released before a handler runs.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <stdexcept>

// CHECK: int settle({{\[\[ +\]\]}} int id) try {
// CHECK: ::distlock::woven::keys(id));
// CHECK: } catch (const std::exception&) {
// GUARD:{{\[\[}}                            ]] int settle({{\[\[}}             ]] int id) try {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}function_try_block.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}function_try_block.cpp"
// GUARD-NEXT:                 "settle", 1s
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}function_try_block.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}function_try_block.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<int>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}function_try_block.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<int, ::distlock::woven::NoObject, decltype(id)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}function_try_block.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(id)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<int>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(id)&&>(id));
[[distlock::lock("settle", 1s)]] int settle([[distlock::key]] int id) try {
  return id;
} catch (const std::exception&) {
  return -1;
}
