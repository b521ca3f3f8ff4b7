// LockSpec: what a lock is (its type, lease ttl) and how to take it (wait, renewal).
//
//   constexpr auto order_lock = distlock::spec("order", 30s, distlock::wait(5s));
//
// spec() is constexpr: evaluated as a constant (a constexpr variable, or woven code), an empty
// type or a non-positive ttl is a compile-time error; evaluated at run time, ConfigError.
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>

#include <distlock/duration.h>
#include <distlock/error.h>

namespace distlock {

// Wait without limit: the default.
inline constexpr Millis kWaitForever = Millis::max();

struct LockSpec {
  std::string_view type;
  Millis ttl{0};
  Millis wait = kWaitForever;  // zero: try once, never wait
  bool renew = true;           // extend the lease while it is held (the watchdog)
};

// The lock type as spec() takes it. A string literal is checked at compile time.
class TypeName {
 public:
  template <std::size_t N>
  consteval TypeName(const char (&literal)[N])  // NOLINT(google-explicit-constructor)
      : value_(literal, N - 1) {
    if (N == 1) throw "distlock::spec: the lock type must not be empty";
  }
  constexpr TypeName(std::string_view value) : value_(value) {}  // NOLINT(google-explicit-constructor)

  constexpr std::string_view value() const { return value_; }

 private:
  std::string_view value_;
};

namespace option {
struct Wait {
  Millis value;
};
struct TryOnly {};
struct Renew {
  bool enabled;
};
}  // namespace option

// Wait at most `limit` for the lock, then throw LockTimeout (try_acquire: return nullopt).
constexpr option::Wait wait(DurationArg limit) { return {limit.value()}; }
// Take the lock only if it is free now.
inline constexpr option::TryOnly try_only{};
// renew(false): no watchdog; the lease ends after ttl even while the function runs.
constexpr option::Renew renew(bool enabled) { return {enabled}; }

namespace detail {
[[noreturn]] inline void spec_error(std::string_view type, const std::string& what) {
  throw ConfigError(std::string(type), "", "distlock::spec(\"" + std::string(type) + "\"): " + what);
}

constexpr void apply(LockSpec& spec, option::Wait wait) {
  if (wait.value < Millis::zero()) spec_error(spec.type, "wait must not be negative");
  spec.wait = wait.value;
}
constexpr void apply(LockSpec& spec, option::TryOnly) { spec.wait = Millis::zero(); }
constexpr void apply(LockSpec& spec, option::Renew renew) { spec.renew = renew.enabled; }
}  // namespace detail

template <class... Options>
constexpr LockSpec spec(TypeName type, DurationArg ttl, Options... options) {
  LockSpec result;
  result.type = type.value();
  result.ttl = ttl.value();
  if (result.type.empty()) detail::spec_error(result.type, "the lock type must not be empty");
  if (result.ttl <= Millis::zero()) detail::spec_error(result.type, "the ttl must be positive");
  (detail::apply(result, options), ...);
  return result;
}

}  // namespace distlock
