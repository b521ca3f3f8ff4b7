// Key paths: a field, a nested field, a const member function, through a
// pointer, and through a base class.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <cstdio>
#include <string>

#include <distlock/distlock.h>

struct Entity { long id = 0; };
struct Customer : Entity { std::string email; };
struct Order {
  Customer customer;
  int number = 0;
  std::string code() const { return "O-" + std::to_string(number); }
};

// CHECK: ::distlock::woven::keys(order.customer.email, same.code(), previous->customer.id, order_again.number));
// GUARD:           {{\[\[}}                       ]] Order& order_again) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}key_paths.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}key_paths.cpp"
// GUARD-NEXT:                 "order", 30s
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}key_paths.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}key_paths.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}key_paths.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(order), decltype(same), decltype(previous), decltype(order_again)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}key_paths.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(order.customer.email, same.code(), previous->customer.id, order_again.number)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(order)&&>(order), static_cast<decltype(same)&&>(same), static_cast<decltype(previous)&&>(previous), static_cast<decltype(order_again)&&>(order_again));
[[distlock::lock("order", 30s)]]
void amend([[distlock::key("customer.email")]] const Order& order,
           [[distlock::key("code()")]] const Order& same,
           [[distlock::key("customer.id")]] const Order* previous,
           [[distlock::key("number")]] Order& order_again) {
  std::printf("%s\n", distlock::current()->name().c_str());
}

// LIVE: order:ann@example.com:O-7:12:7
int main() {
  Order order{{{12}, "ann@example.com"}, 7};
  amend(order, order, &order, order);
}
