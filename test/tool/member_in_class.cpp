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
  // CHECK: ::distlock::woven::key_of(item.sku));
  // GUARD:  void reserve({{\[\[}}                    ]] const Item& item, int count) {
  // GUARD-NEXT:#line [[@LINE+8]] "{{.*}}member_in_class.cpp"
  // GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
  // GUARD-NEXT:#line [[@LINE+6]] "{{.*}}member_in_class.cpp"
  // GUARD-NEXT:                   "stock", "5s", distlock::wait(std::chrono::seconds(2))
  // GUARD-NEXT:#line [[@LINE+4]] "{{.*}}member_in_class.cpp"
  // GUARD-NEXT:); }();
  // GUARD-NEXT:#line [[@LINE+3]] "{{.*}}member_in_class.cpp"
  // GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(item.sku));
  [[distlock::lock("stock", "5s", distlock::wait(std::chrono::seconds(2)))]]
  void reserve([[distlock::key("sku")]] const Item& item, int count) {
    stock_ -= count;
  }

private:
  int stock_ = 0;
};
