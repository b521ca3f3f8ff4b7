// Overriders of a locked virtual function are not locked unless annotated.
// RUN: %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s
// RUN: %gxx-syntax %t.cpp
// RUN: %clangxx-syntax %t.cpp

struct Store {
  // CHECK: virtual_function.cpp:[[@LINE+1]]:5: warning: 'Store::save' is virtual: overriders are not locked unless they carry {{\[\[}}distlock::lock{{\]\]}} themselves
  [[distlock::lock("store", 1000)]] virtual void save([[distlock::key]] int id) {}
};
