// SPDX-License-Identifier: Apache-2.0
// LockSpec: what a lock is (its type, lease ttl) and how to take it (wait, renewal).
//
//   constexpr auto order_lock = distlock::spec("order", 30s, distlock::wait(5s));
//
// spec() is constexpr: evaluated as a constant (a constexpr variable, or woven code), an empty
// type, the type "elections" (elections' own: distlock/election.h) or a non-positive ttl is a
// compile-time error; evaluated at run time, ConfigError.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <distlock/duration.h>
#include <distlock/error.h>
#include <distlock/standard.h>

namespace distlock {

// Wait without limit: the default.
inline constexpr Millis kWaitForever = Millis::max();

// Which side of a lock a spec takes.
enum class Mode {
  exclusive,  // one holder
  read,       // shared with other readers, excluded by writers (read-write locks)
  write,      // excludes readers and other writers (read-write locks)
};

// The longest lock type a spec holds, in bytes.
inline constexpr std::size_t kMaxLockTypeLength = 128;

// A lock type held by value: a spec built at run time from a string that is gone by the time
// the spec is used (a temporary, a local of a function that returned) still has its type.
class LockType {
 public:
  constexpr LockType() = default;
  // At most kMaxLockTypeLength bytes (spec() checks); longer values are cut.
  constexpr explicit LockType(std::string_view value)
      : size_(value.size() < kMaxLockTypeLength ? value.size() : kMaxLockTypeLength) {
    for (std::size_t i = 0; i < size_; ++i) data_[i] = value[i];
  }

  // A view of this object's own bytes: valid while the spec is.
  constexpr std::string_view view() const { return {data_, size_}; }
  // NOLINTNEXTLINE(google-explicit-constructor)
  constexpr operator std::string_view() const { return view(); }  // view()
  constexpr bool empty() const { return size_ == 0; }             // no type at all
  constexpr std::size_t size() const { return size_; }            // in bytes

  // Compares the bytes of the type with a string.
  friend constexpr bool operator==(const LockType& a, std::string_view b) { return a.view() == b; }
  // Compares the bytes of the type with a string.
  friend constexpr bool operator==(std::string_view a, const LockType& b) { return a == b.view(); }
  // Compares the bytes of the type with a string.
  friend constexpr bool operator!=(const LockType& a, std::string_view b) { return !(a == b); }
  // Compares the bytes of the type with a string.
  friend constexpr bool operator!=(std::string_view a, const LockType& b) { return !(a == b); }

 private:
  char data_[kMaxLockTypeLength] = {};
  std::size_t size_ = 0;
};

// What a locked function does when its lock stays taken past the wait (woven code).
enum class OnBusy {
  raise,     // throw LockTimeout (the default)
  skip,      // return a value-initialized result without running the body
  fallback,  // call the fallback function with the same arguments and return its result
};

// What a locked function does when its lease was lost while the body ran (woven code).
enum class OnLost {
  report,  // current()->valid() turns false and the loss is logged; the result is returned
  fail,    // the call throws LockLost after the body returns
};

// A lock and how to take it: what spec() returns, and what Client::acquire takes.
struct LockSpec {
  LockType type;  // the lock type: the first part of the lock name
  Millis ttl{0};  // the lease time: the server frees the lock this long after the last renewal
  Millis wait = kWaitForever;   // zero: try once, never wait
  bool renew = true;            // extend the lease while it is held (the watchdog)
  Mode mode = Mode::exclusive;  // exclusive, or a side of a read-write lock
  // A semaphore: up to this many holders at once, each with its own lease and fence.
  // Zero: a lock (exclusive, or read-write by `mode`).
  std::uint32_t permits = 0;
  // Grants in arrival order: a release wakes the longest waiting contender only.
  bool fair = false;
  // Released earlier than this after the grant, the lock stays taken on the server until then.
  Millis hold_at_least{0};
  bool per_key = false;             // woven: one lock per key parameter, taken in lock-name order
  OnBusy on_busy = OnBusy::raise;   // woven code: when the lock stays taken past the wait
  OnLost on_lost = OnLost::report;  // woven code: when the lease was lost while the body ran
};

// The lock type as spec() takes it. A string literal is checked at compile time. The spec
// copies it (LockType), so a spec never refers to the caller's string.
class TypeName {
 public:
  // A string literal: an empty one is a compile-time error.
  template <std::size_t N>
  DISTLOCK_CONSTEVAL TypeName(const char (&literal)[N])  // NOLINT(google-explicit-constructor)
      : value_(literal, N - 1) {
    static_assert(N > 1,
                  "distlock::spec, distlock::election: the lock type must not be empty (nor the "
                  "election name)");
  }
  // A string read at run time: spec() checks it then.
  // NOLINTNEXTLINE(google-explicit-constructor)
  constexpr TypeName(std::string_view value) : value_(value) {}

  // The type as given.
  constexpr std::string_view value() const { return value_; }

 private:
  std::string_view value_;
};

// The types of spec()'s options: what wait(), try_only, renew() and the others below are. A
// program names the options, not these types.
namespace option {
// wait(limit)
struct Wait {
  Millis value;  // the limit
};
struct TryOnly {};  // try_only
// renew(enabled)
struct Renew {
  bool enabled;  // whether the lease is renewed
};
struct Read {};   // read
struct Write {};  // write
// permits(count)
struct Permits {
  long long count;  // the semaphore's size
};
struct Fair {};  // fair
// hold_at_least(duration)
struct HoldAtLeast {
  Millis value;  // the shortest hold
};
struct PerKey {};  // per_key
struct Skip {};    // skip
// fallback(function)
template <class Function>
struct Fallback {
  Function function;  // what a busy call returns the result of
};
// on_busy(skip) or on_busy(fallback(f))
template <class Policy>
struct OnBusy {
  Policy policy;  // Skip or Fallback
};
struct Fail {};  // fail
// on_lost(fail)
struct OnLost {
  ::distlock::OnLost policy;  // what a call whose lease was lost does
};
}  // namespace option

// Wait at most `limit` for the lock, then throw LockTimeout (try_acquire: return nullopt).
constexpr option::Wait wait(DurationArg limit) { return {limit.value()}; }
// Take the lock only if it is free now.
inline constexpr option::TryOnly try_only{};
// renew(false): no watchdog; the lease ends after ttl even while the function runs.
constexpr option::Renew renew(bool enabled) { return {enabled}; }
// The shared side of a read-write lock: readers exclude writers only.
inline constexpr option::Read read{};
// The exclusive side of a read-write lock: excludes readers and other writers.
inline constexpr option::Write write{};
// A semaphore of `count` permits: up to `count` holders at once, each with its own lease.
constexpr option::Permits permits(long long count) { return {count}; }
// Grant the lock in the order the contenders asked for it (exclusive locks only).
inline constexpr option::Fair fair{};
// Keep the lock taken until `duration` after the grant even when released earlier (the
// server's expiry is set; the caller does not wait). redis:// kinds and memory:// only.
constexpr option::HoldAtLeast hold_at_least(DurationArg duration) { return {duration.value()}; }
// Woven code: each [[distlock::key]] parameter names its own lock, all taken in lock-name
// order (equal keys once), all or none within the wait, released in reverse order.
inline constexpr option::PerKey per_key{};

// Woven code: on_busy(skip) returns a value-initialized result without running the body;
// on_busy(fallback(&f)) returns f(same arguments) (for a member: a member function pointer).
inline constexpr option::Skip skip{};
// The function a busy call returns the result of: on_busy(fallback(&f)).
template <class Function>
constexpr option::Fallback<Function> fallback(Function function) {
  return {function};
}
// When the lock stays busy, return a value-initialized result without running the body.
constexpr option::OnBusy<option::Skip> on_busy(option::Skip skip) { return {skip}; }
// When the lock stays busy, return f(the same arguments) without running the body.
template <class Function>
constexpr option::OnBusy<option::Fallback<Function>> on_busy(option::Fallback<Function> f) {
  return {f};
}
// Woven code: on_lost(fail) makes the call throw LockLost when the body returns after its
// lease was lost, instead of handing back a result computed without the lock.
inline constexpr option::Fail fail{};
// on_lost(fail): throw LockLost from a call whose lease was lost while its body ran.
constexpr option::OnLost on_lost(option::Fail) { return {OnLost::fail}; }

namespace detail {
// Reached in constant evaluation, a call to one of these is the compile-time error, and its
// name is the message.
[[noreturn]] inline void spec_error(std::string_view type, const std::string& what) {
  throw ConfigError(std::string(type), "", "distlock::spec(): " + what);
}
[[noreturn]] inline void error_lock_type_must_not_be_empty(std::string_view type) {
  spec_error(type, "the lock type must not be empty");
}
[[noreturn]] inline void error_lock_type_longer_than_128_bytes(std::string_view type) {
  spec_error(type.substr(0, 64),
             "the lock type is longer than " + std::to_string(kMaxLockTypeLength) + " bytes");
}
[[noreturn]] inline void error_lock_type_elections_is_reserved_for_leader_election(
    std::string_view type) {
  spec_error(type,
             "the lock type \"elections\" is reserved: elections' locks have it "
             "(distlock/election.h); choose another type");
}
[[noreturn]] inline void error_ttl_must_be_positive(std::string_view type) {
  spec_error(type, "the ttl must be positive");
}
[[noreturn]] inline void error_wait_must_not_be_negative(std::string_view type) {
  spec_error(type, "wait must not be negative");
}
[[noreturn]] inline void error_hold_at_least_must_not_be_negative(std::string_view type) {
  spec_error(type, "hold_at_least must not be negative");
}
[[noreturn]] inline void error_permits_must_be_between_1_and_4294967295(std::string_view type) {
  spec_error(type, "permits must be between 1 and 4294967295");
}
[[noreturn]] inline void error_permits_cannot_be_read_or_write(std::string_view type) {
  spec_error(type,
             "permits makes a semaphore, which has no read or write side: remove read/write or "
             "permits");
}
[[noreturn]] inline void error_fair_is_for_exclusive_locks_only(std::string_view type) {
  spec_error(type, "fair applies to exclusive locks: remove fair, or read/write/permits");
}

constexpr void apply(LockSpec& spec, option::Wait wait) {
  if (wait.value < Millis::zero()) error_wait_must_not_be_negative(spec.type);
  spec.wait = wait.value;
}
constexpr void apply(LockSpec& spec, option::TryOnly) { spec.wait = Millis::zero(); }
constexpr void apply(LockSpec& spec, option::Renew renew) { spec.renew = renew.enabled; }
constexpr void apply(LockSpec& spec, option::Read) { spec.mode = Mode::read; }
constexpr void apply(LockSpec& spec, option::Write) { spec.mode = Mode::write; }
constexpr void apply(LockSpec& spec, option::Permits permits) {
  if (permits.count < 1 ||
      permits.count > static_cast<long long>(std::numeric_limits<std::uint32_t>::max()))
    error_permits_must_be_between_1_and_4294967295(spec.type);
  spec.permits = static_cast<std::uint32_t>(permits.count);
}
constexpr void apply(LockSpec& spec, option::Fair) { spec.fair = true; }
constexpr void apply(LockSpec& spec, option::HoldAtLeast hold) {
  if (hold.value < Millis::zero()) error_hold_at_least_must_not_be_negative(spec.type);
  spec.hold_at_least = hold.value;
}
constexpr void apply(LockSpec& spec, option::PerKey) { spec.per_key = true; }
constexpr void apply(LockSpec& spec, option::OnBusy<option::Skip>) { spec.on_busy = OnBusy::skip; }
// The function itself is the woven guard's to call (woven.h); the spec records the policy.
template <class Function>
constexpr void apply(LockSpec& spec, option::OnBusy<option::Fallback<Function>>) {
  spec.on_busy = OnBusy::fallback;
}
constexpr void apply(LockSpec& spec, option::OnLost on_lost) { spec.on_lost = on_lost.policy; }
}  // namespace detail

template <class... Options>
constexpr LockSpec spec(TypeName type, DurationArg ttl, Options... options) {
  LockSpec result;
  if (type.value().size() > kMaxLockTypeLength)
    detail::error_lock_type_longer_than_128_bytes(type.value());
  result.type = LockType(type.value());
  result.ttl = ttl.value();
  if (result.type.empty()) detail::error_lock_type_must_not_be_empty(result.type);
  if (result.type == "elections")
    detail::error_lock_type_elections_is_reserved_for_leader_election(result.type);
  if (result.ttl <= Millis::zero()) detail::error_ttl_must_be_positive(result.type);
  (detail::apply(result, options), ...);
  if (result.permits > 0 && result.mode != Mode::exclusive)
    detail::error_permits_cannot_be_read_or_write(result.type);
  if (result.fair && (result.mode != Mode::exclusive || result.permits > 0))
    detail::error_fair_is_for_exclusive_locks_only(result.type);
  return result;
}

}  // namespace distlock
