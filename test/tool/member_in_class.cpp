// A member function defined in its class, keyed on a field of *this's
// argument through a key path.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <string>

struct Item { std::string sku; };

class Inventory {
public:
  // CHECK: void reserve({{\[\[ +\]\]}} const Item& item, int count) {
  // CHECK: ::distlock::key_of(item.sku));
  [[distlock::lock("stock", "5s", distlock::wait(std::chrono::seconds(2)))]]
  void reserve([[distlock::key("sku")]] const Item& item, int count) {
    stock_ -= count;
  }

private:
  int stock_ = 0;
};
