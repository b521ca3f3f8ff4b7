// A static member function.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

struct Ledger {
  // CHECK: static int close_day({{\[\[ +\]\]}} int day) {
  // CHECK: ::distlock::key_of(day));
  [[distlock::lock("ledger-day", 60000)]] static int close_day([[distlock::key]] int day) {
    return day;
  }
};
