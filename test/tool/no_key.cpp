// A lock without key parameters is one lock for the whole type.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <chrono>
#include <cstdio>

#include <distlock/distlock.h>

// CHECK: {{^}}                 "nightly-report", std::chrono::minutes{10}
// CHECK: ::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys());
// GUARD:void build_report() {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}no_key.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}no_key.cpp"
// GUARD-NEXT:                 "nightly-report", std::chrono::minutes{10}
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}no_key.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}no_key.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}no_key.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}no_key.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys()); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object); std::printf("%s\n", distlock::current()->name().c_str()); }
[[distlock::lock("nightly-report", std::chrono::minutes{10})]]
void build_report() { std::printf("%s\n", distlock::current()->name().c_str()); }

// LIVE: nightly-report{{$}}
int main() { build_report(); }
