// A member function defined in its class, keyed on a field of *this's
// argument through a key path.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <string>

struct Item { std::string sku; };

class Inventory {
public:
  // CHECK: void reserve({{\[\[ +\]\]}} const Item& item, int count) {
  // CHECK: ::distlock::woven::keys(item.sku));
  // GUARD:  void reserve({{\[\[}}                    ]] const Item& item, int count) {
  // GUARD-NEXT:#line [[@LINE+12]] "{{.*}}member_in_class.cpp"
  // GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
  // GUARD-NEXT:#line [[@LINE+10]] "{{.*}}member_in_class.cpp"
  // GUARD-NEXT:                   "stock", "5s", distlock::wait(std::chrono::seconds(2))
  // GUARD-NEXT:#line [[@LINE+8]] "{{.*}}member_in_class.cpp"
  // GUARD-NEXT:); }();
  // GUARD-NEXT:#line [[@LINE+6]] "{{.*}}member_in_class.cpp"
  // GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
  // GUARD-NEXT:#line [[@LINE+4]] "{{.*}}member_in_class.cpp"
  // GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, decltype(this), decltype(item), decltype(count)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
  // GUARD-NEXT:#line [[@LINE+3]] "{{.*}}member_in_class.cpp"
  // GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(item.sku)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, this, static_cast<decltype(item)&&>(item), static_cast<decltype(count)&&>(count));
  [[distlock::lock("stock", "5s", distlock::wait(std::chrono::seconds(2)))]]
  void reserve([[distlock::key("sku")]] const Item& item, int count) {
    stock_ -= count;
  }

private:
  int stock_ = 0;
};
