// A member of a class template, in class and out of line.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

template <class T>
struct Queue {
  // CHECK: void push({{\[\[ +\]\]}} int partition, T value) {
  // CHECK: ::distlock::woven::key_of(partition));
  // GUARD:  {{\[\[}}                           ]] void push({{\[\[}}             ]] int partition, T value) {
  // GUARD-NEXT:#line [[@LINE+8]] "{{.*}}class_template_member.cpp"
  // GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
  // GUARD-NEXT:#line [[@LINE+6]] "{{.*}}class_template_member.cpp"
  // GUARD-NEXT:                   "queue", 2s
  // GUARD-NEXT:#line [[@LINE+4]] "{{.*}}class_template_member.cpp"
  // GUARD-NEXT:); }();
  // GUARD-NEXT:#line [[@LINE+2]] "{{.*}}class_template_member.cpp"
  // GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(partition));}
  [[distlock::lock("queue", 2s)]] void push([[distlock::key]] int partition, T value) {}

  [[distlock::lock("queue-drain", 2s)]] void drain();
};

// CHECK-LABEL: void Queue<T>::drain() {
// CHECK: ::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_);
// GUARD:void Queue<T>::drain() {
// GUARD-NEXT:#line [[@LINE-6]] "{{.*}}class_template_member.cpp"
// GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
// GUARD-NEXT:#line [[@LINE-8]] "{{.*}}class_template_member.cpp"
// GUARD-NEXT:                   "queue-drain", 2s
// GUARD-NEXT:#line [[@LINE-10]] "{{.*}}class_template_member.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}class_template_member.cpp"
// GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_);}
template <class T>
void Queue<T>::drain() {}

template struct Queue<int>;
