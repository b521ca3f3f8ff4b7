// A constructor: the guard opens its body, so member initializers run before
// the lock is taken.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

struct Session {
  // CHECK: Session({{\[\[ +\]\]}} int user) : user_(user) {
  // CHECK: ::distlock::key_of(user));
  [[distlock::lock("session", 10s)]] Session([[distlock::key]] int user) : user_(user) {}
  int user_;
};
