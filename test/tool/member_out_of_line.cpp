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
// CHECK: ::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(id));
// GUARD:void Account::withdraw(int id, int amount) {
// GUARD-NEXT:#line [[@LINE-8]] "{{.*}}member_out_of_line.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE-10]] "{{.*}}member_out_of_line.cpp"
// GUARD-NEXT:                   "account", 15s
// GUARD-NEXT:#line [[@LINE-12]] "{{.*}}member_out_of_line.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE-14]] "{{.*}}member_out_of_line.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE-16]] "{{.*}}member_out_of_line.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, decltype(this), decltype(id), decltype(amount)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}member_out_of_line.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(id)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, this, static_cast<decltype(id)&&>(id), static_cast<decltype(amount)&&>(amount));
void Account::withdraw(int id, int amount) {
  balance -= amount;
}
