// The attributes sit on the in-class declaration; the definition outside the
// class gets the guard.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

struct Account {
  // CHECK: {{^  \[\[ +\]\] void withdraw\(\[\[ +\]\] int id, int amount\);$}}
  [[distlock::lock("account", 15s)]] void withdraw([[distlock::key]] int id, int amount);
  int balance = 0;
};

// CHECK-LABEL: void Account::withdraw(int id, int amount) {
// CHECK: #line [[@LINE-5]] "{{.*}}member_out_of_line.cpp"
// CHECK: ::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(id));
// GUARD:void Account::withdraw(int id, int amount) {
// GUARD-NEXT:#line [[@LINE-8]] "{{.*}}member_out_of_line.cpp"
// GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
// GUARD-NEXT:#line [[@LINE-10]] "{{.*}}member_out_of_line.cpp"
// GUARD-NEXT:                   "account", 15s
// GUARD-NEXT:#line [[@LINE-12]] "{{.*}}member_out_of_line.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}member_out_of_line.cpp"
// GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(id));
void Account::withdraw(int id, int amount) {
  balance -= amount;
}
