// on_busy that does not fit the function is a compile-time error at the attribute's line, in
// C++17 as in C++20, with both compilers: skip needs a result it can value-initialize, a
// fallback must take the parameters and return the result, a constructor has no result, and a
// fallback needs every parameter named.
// RUN: %weave %s -o %t.cpp -- -std=c++17
// RUN: not %clangxx-syntax-at -std=c++17 %t.cpp 2>&1 | FileCheck %s
// RUN: not %clangxx-syntax-at -std=c++20 %t.cpp 2>&1 | FileCheck %s
// RUN: not %gxx-syntax-at -std=c++17 %t.cpp 2>&1 | FileCheck %s
// RUN: not %gxx-syntax-at -std=c++20 %t.cpp 2>&1 | FileCheck %s

#include <string>

struct NoDefault {
  explicit NoDefault(int value) : value(value) {}
  int value;
};

// CHECK: on_busy_misfits.cpp:[[@LINE+1]]:{{[0-9]+}}: error: static assert{{(ion)?}} failed{{.*}}on_busy(skip) needs a return type it can value-initialize
[[distlock::lock("a", 5s, distlock::try_only, distlock::on_busy(distlock::skip))]]
NoDefault make(int id) { return NoDefault(id); }

// CHECK: on_busy_misfits.cpp:[[@LINE+1]]:{{[0-9]+}}: error: static assert{{(ion)?}} failed{{.*}}on_busy(skip) needs a return type it can value-initialize
[[distlock::lock("a", 5s, distlock::try_only, distlock::on_busy(distlock::skip))]]
const std::string& name(const std::string& of) { return of; }

long wrong_parameters(const std::string& id) { return static_cast<long>(id.size()); }

// CHECK: on_busy_misfits.cpp:[[@LINE+1]]:{{[0-9]+}}: error: static assert{{(ion)?}} failed{{.*}}on_busy(fallback(&f)): f must take this function's parameters
[[distlock::lock("a", 5s, distlock::on_busy(distlock::fallback(&wrong_parameters)))]]
long count(int id) { return id; }

std::string wrong_result(int id) { return std::to_string(id); }

// CHECK: on_busy_misfits.cpp:[[@LINE+1]]:{{[0-9]+}}: error: static assert{{(ion)?}} failed{{.*}}on_busy(fallback(&f)): f must take this function's parameters
[[distlock::lock("a", 5s, distlock::on_busy(distlock::fallback(&wrong_result)))]]
int total(int id) { return id; }

struct Cart {
  int mutating(int id) { return id; }
  // A const member's fallback must be const too: it is called on the same const object.
  // CHECK: on_busy_misfits.cpp:[[@LINE+1]]:{{[0-9]+}}: error: static assert{{(ion)?}} failed{{.*}}on_busy(fallback(&f)): f must take this function's parameters
  [[distlock::lock("a", 5s, distlock::on_busy(distlock::fallback(&Cart::mutating)))]]
  int size(int id) const { return id; }

  // CHECK: on_busy_misfits.cpp:[[@LINE+1]]:{{[0-9]+}}: error: static assert{{(ion)?}} failed{{.*}}on_busy needs a result to return, and a constructor, a destructor or a deduced return type has none
  [[distlock::lock("a", 5s, distlock::on_busy(distlock::skip))]]
  Cart() {}
};

// CHECK: on_busy_misfits.cpp:[[@LINE+1]]:{{[0-9]+}}: error: static assert{{(ion)?}} failed{{.*}}on_busy needs a result to return, and a constructor, a destructor or a deduced return type has none
[[distlock::lock("a", 5s, distlock::on_busy(distlock::skip))]]
auto deduced(int id) { return id; }

int unnamed_fallback(int id, int) { return id; }

// CHECK: on_busy_misfits.cpp:[[@LINE+1]]:{{[0-9]+}}: error: static assert{{(ion)?}} failed{{.*}}on_busy(fallback(&f)) passes every argument to f: name each parameter
[[distlock::lock("a", 5s, distlock::on_busy(distlock::fallback(&unnamed_fallback)))]]
int unnamed(int id, int) { return id; }
