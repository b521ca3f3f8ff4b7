// Taking a lock can throw (LockTimeout, BackendUnavailable): in a noexcept
// function that would call std::terminate, so the weaver refuses it. A
// noexcept(false) function, or one whose noexcept depends on a template
// argument, is woven.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s
// RUN: %weave %s -o %t.cpp -- -std=c++20 -DONLY_WOVEN
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=WOVEN
// RUN: %gxx-syntax -DONLY_WOVEN %t.cpp
// RUN: %clangxx-syntax -DONLY_WOVEN %t.cpp

#ifndef ONLY_WOVEN
// CHECK: noexcept_function.cpp:[[@LINE+1]]:3: error: 'distlock::lock' on a noexcept function: taking the lock can throw (LockTimeout, BackendUnavailable), which would end the program; lock in a function that may throw and call it from here, handling the error
[[distlock::lock("price", 1000)]] int price(int cents) noexcept { return cents; }

// CHECK: noexcept_function.cpp:[[@LINE+1]]:3: error: 'distlock::lock' on a noexcept function
[[distlock::lock("price", 1000)]] int cost(int cents) noexcept(true) { return cents; }

struct Basket {
  // CHECK: noexcept_function.cpp:[[@LINE+1]]:5: error: 'distlock::lock' on a destructor, which is noexcept
  [[distlock::lock("basket", 1000)]] ~Basket() {}
};
#endif

// WOVEN: int total(int cents) noexcept(false) {
// WOVEN-NEXT: #line
// WOVEN-NEXT: static constexpr auto distlock_woven_lock_
[[distlock::lock("total", 1000)]] int total(int cents) noexcept(false) {
  return cents;
}

// WOVEN: T scaled(T cents) noexcept(noexcept(T(cents))) {
// WOVEN-NEXT: #line
// WOVEN-NEXT: static constexpr auto distlock_woven_lock_
template <class T>
[[distlock::lock("scaled", 1000)]] T scaled(T cents) noexcept(noexcept(T(cents))) {
  return cents;
}
