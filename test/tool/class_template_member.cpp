// A member of a class template, in class and out of line.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-syntax %t.cpp

template <class T>
struct Queue {
  // CHECK: void push({{\[\[ +\]\]}} int partition, T value) {
  // CHECK: ::distlock::woven::keys(partition));
  // GUARD:  {{\[\[}}                           ]] void push({{\[\[}}             ]] int partition, T value) {
  // GUARD-NEXT:#line [[@LINE+12]] "{{.*}}class_template_member.cpp"
  // GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
  // GUARD-NEXT:#line [[@LINE+10]] "{{.*}}class_template_member.cpp"
  // GUARD-NEXT:                   "queue", 2s
  // GUARD-NEXT:#line [[@LINE+8]] "{{.*}}class_template_member.cpp"
  // GUARD-NEXT:); }();
  // GUARD-NEXT:#line [[@LINE+6]] "{{.*}}class_template_member.cpp"
  // GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
  // GUARD-NEXT:#line [[@LINE+4]] "{{.*}}class_template_member.cpp"
  // GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, decltype(this), decltype(partition), decltype(value)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
  // GUARD-NEXT:#line [[@LINE+2]] "{{.*}}class_template_member.cpp"
  // GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(partition)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, this, static_cast<decltype(partition)&&>(partition), static_cast<decltype(value)&&>(value));}
  [[distlock::lock("queue", 2s)]] void push([[distlock::key]] int partition, T value) {}

  [[distlock::lock("queue-drain", 2s)]] void drain();
};

// CHECK-LABEL: void Queue<T>::drain() {
// CHECK: ::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys());
// GUARD:void Queue<T>::drain() {
// GUARD-NEXT:#line [[@LINE-6]] "{{.*}}class_template_member.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE-8]] "{{.*}}class_template_member.cpp"
// GUARD-NEXT:                   "queue-drain", 2s
// GUARD-NEXT:#line [[@LINE-10]] "{{.*}}class_template_member.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE-12]] "{{.*}}class_template_member.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE-14]] "{{.*}}class_template_member.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, decltype(this)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}class_template_member.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys()); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, this);}
template <class T>
void Queue<T>::drain() {}

template struct Queue<int>;
