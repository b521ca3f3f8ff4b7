// A member of a class template, in class and out of line.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

template <class T>
struct Queue {
  // CHECK: void push({{\[\[ +\]\]}} int partition, T value) {
  // CHECK: ::distlock::key_of(partition));
  [[distlock::lock("queue", 2s)]] void push([[distlock::key]] int partition, T value) {}

  [[distlock::lock("queue-drain", 2s)]] void drain();
};

// CHECK-LABEL: void Queue<T>::drain() {
// CHECK: ::distlock::ScopedLock distlock_woven_guard_(distlock_woven_spec_);
template <class T>
void Queue<T>::drain() {}

template struct Queue<int>;
