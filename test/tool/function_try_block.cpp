// A function-try-block: the guard opens the try block, so the lock is
// released before a handler runs.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

#include <stdexcept>

// CHECK: int settle({{\[\[ +\]\]}} int id) try {
// CHECK: ::distlock::key_of(id));
// CHECK: } catch (const std::exception&) {
[[distlock::lock("settle", 1s)]] int settle([[distlock::key]] int id) try {
  return id;
} catch (const std::exception&) {
  return -1;
}
