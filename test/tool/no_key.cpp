// A lock without key parameters is one lock for the whole type.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <chrono>

// CHECK: {{^}}                 "nightly-report", std::chrono::minutes{10}
// CHECK: ::distlock::ScopedLock distlock_woven_guard_(distlock_woven_spec_);
[[distlock::lock("nightly-report", std::chrono::minutes{10})]]
void build_report() {}
