// A lock without key parameters is one lock for the whole type.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <chrono>
#include <cstdio>

#include <distlock/distlock.h>

// CHECK: {{^}}                 "nightly-report", std::chrono::minutes{10}
// CHECK: ::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_);
// GUARD:void build_report() {
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}no_key.cpp"
// GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}no_key.cpp"
// GUARD-NEXT:                 "nightly-report", std::chrono::minutes{10}
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}no_key.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}no_key.cpp"
// GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_); std::printf("%s\n", distlock::current()->name().c_str()); }
[[distlock::lock("nightly-report", std::chrono::minutes{10})]]
void build_report() { std::printf("%s\n", distlock::current()->name().c_str()); }

// LIVE: nightly-report{{$}}
int main() { build_report(); }
