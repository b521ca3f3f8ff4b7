// The options the LockedCall behind the guard carries out. per_key: one lock per key, taken in
// lock-name order, equal keys once, each lease with its own name and fence; two threads
// transferring in opposite directions 200 times each never deadlock and lose no update.
// hold_at_least: the lock stays taken after a quick return until its minimum hold has passed.
// on_lost(fail): a call whose lease ran out while the body ran throws LockLost on return.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include <distlock/distlock.h>

using namespace std::chrono_literals;

int balances[2] = {1000, 1000};

// GUARD:void transfer({{\[\[}}             ]] int from, {{\[\[}}             ]] int to, int amount) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:                 "account", 5s, distlock::per_key
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(from), decltype(to), decltype(amount)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(from, to)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(from)&&>(from), static_cast<decltype(to)&&>(to), static_cast<decltype(amount)&&>(amount));
[[distlock::lock("account", 5s, distlock::per_key)]]
void transfer([[distlock::key]] int from, [[distlock::key]] int to, int amount) {
  // Without the locks, the two threads' read-modify-writes interleave here.
  const int from_balance = balances[from];
  const int to_balance = balances[to];
  std::this_thread::yield();
  balances[from] = from_balance - amount;
  balances[to] = to_balance + amount;
}

[[distlock::lock("account", 5s, distlock::per_key)]]
void show_leases([[distlock::key]] int from, [[distlock::key]] int to) {
  std::printf("%d,%d:", from, to);
  for (const distlock::Lease* lease : distlock::current_leases())
    std::printf(" %s", lease->name().c_str());
  const bool current_is_first = distlock::current() == distlock::current_leases().front();
  const bool fences_differ = distlock::current_leases().size() < 2 ||
                             distlock::current_leases()[0]->fence() !=
                                 distlock::current_leases()[1]->fence();
  std::printf(" (current is the first: %d, fences differ: %d)\n", current_is_first,
              fences_differ);
}

// GUARD:void quick_job() {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:                 "nightly", 5s, distlock::hold_at_least(300ms)
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys()); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object);}
[[distlock::lock("nightly", 5s, distlock::hold_at_least(300ms))]]
void quick_job() {}

// GUARD:int outlive_the_lease() {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:                 "lost", 200ms, distlock::renew(false), distlock::on_lost(distlock::fail)
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<int>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<int, ::distlock::woven::NoObject>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}per_key_hold_and_loss.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys()); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<int>(distlock_woven_lock_, ::distlock::woven::no_object);
[[distlock::lock("lost", 200ms, distlock::renew(false), distlock::on_lost(distlock::fail))]]
int outlive_the_lease() {
  // Runs until the lease has run out: the result is computed without the lock.
  while (distlock::current()->valid()) std::this_thread::sleep_for(5ms);
  return 42;
}

[[distlock::lock("kept", 5s, distlock::on_lost(distlock::fail))]]
int within_the_lease() { return 7; }

// LIVE:      2,1: account:1 account:2 (current is the first: 1, fences differ: 1)
// LIVE-NEXT: 3,3: account:3 (current is the first: 1, fences differ: 1)
// LIVE-NEXT: balances 1000 + 1000 = 2000, 400 transfers
// LIVE-NEXT: right after the quick job: busy
// LIVE-NEXT: after its minimum hold: free, held at least 300 ms: yes
// LIVE-NEXT: within the lease: 7
// LIVE-NEXT: outliving the lease: LockLost {{.*}}'lost'{{.*}}lost while the locked function ran
int main() {
  show_leases(2, 1);
  show_leases(3, 3);

  constexpr int kTransfers = 200;
  std::thread forth([] {
    for (int i = 0; i < kTransfers; ++i) transfer(0, 1, 3);
  });
  std::thread back([] {
    for (int i = 0; i < kTransfers; ++i) transfer(1, 0, 3);
  });
  forth.join();
  back.join();
  std::printf("balances %d + %d = %d, %d transfers\n", balances[0], balances[1],
              balances[0] + balances[1], 2 * kTransfers);

  auto& client = distlock::default_client();
  const auto nightly = distlock::spec("nightly", 5s);
  const auto called_at = std::chrono::steady_clock::now();
  quick_job();
  std::printf("right after the quick job: %s\n",
              client.try_acquire(nightly, {}).has_value() ? "free" : "busy");
  auto next = client.acquire(nightly, {});
  const auto held_for = std::chrono::steady_clock::now() - called_at;
  std::printf("after its minimum hold: free, held at least 300 ms: %s\n",
              held_for >= 300ms ? "yes" : "no");
  next.release();

  std::printf("within the lease: %d\n", within_the_lease());
  try {
    std::printf("outliving the lease: returned %d\n", outlive_the_lease());
  } catch (const distlock::LockLost& error) {
    std::printf("outliving the lease: LockLost %s\n", error.what());
  }
}
