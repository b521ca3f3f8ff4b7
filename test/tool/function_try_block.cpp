// A function-try-block: the guard opens the try block, so the lock is
// released before a handler runs.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <stdexcept>

// CHECK: int settle({{\[\[ +\]\]}} int id) try {
// CHECK: ::distlock::woven::key_of(id));
// CHECK: } catch (const std::exception&) {
// GUARD:{{\[\[}}                            ]] int settle({{\[\[}}             ]] int id) try {
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}function_try_block.cpp"
// GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}function_try_block.cpp"
// GUARD-NEXT:                 "settle", 1s
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}function_try_block.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}function_try_block.cpp"
// GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(id));
[[distlock::lock("settle", 1s)]] int settle([[distlock::key]] int id) try {
  return id;
} catch (const std::exception&) {
  return -1;
}
