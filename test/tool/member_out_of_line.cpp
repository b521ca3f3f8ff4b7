// The attributes sit on the in-class declaration; the definition outside the
// class gets the guard.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

struct Account {
  // CHECK: {{^  \[\[ +\]\] void withdraw\(\[\[ +\]\] int id, int amount\);$}}
  [[distlock::lock("account", 15s)]] void withdraw([[distlock::key]] int id, int amount);
  int balance = 0;
};

// CHECK-LABEL: void Account::withdraw(int id, int amount) {
// CHECK: #line [[@LINE-5]] "{{.*}}member_out_of_line.cpp"
// CHECK: ::distlock::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::key_of(id));
void Account::withdraw(int id, int amount) {
  balance -= amount;
}
