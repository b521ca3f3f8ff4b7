// A key on a function without a lock has no effect: a warning, and the
// source is still woven.
// RUN: %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s
// RUN: %gxx-syntax %t.cpp
// RUN: %clangxx-syntax %t.cpp

// CHECK: key_without_lock.cpp:[[@LINE+1]]:14: warning: 'distlock::key' on a parameter of 'audit', which has no {{\[\[}}distlock::lock{{\]\]}}: it has no effect; add the lock or remove the key
void audit([[distlock::key]] int account) {}
