// SPDX-License-Identifier: Apache-2.0
// What a woven guard builds from an attribute's arguments, and what it returns when the lock
// stays busy. `[[distlock::lock("order", 30s, distlock::on_busy(distlock::fallback(&f)))]]`
// becomes a constant Annotation: the spec, and the fallback function (NoFallback without one).
// The checks are constant expressions that the guard asserts at the attribute's line, so a
// return type that cannot be skipped, or a fallback that does not fit, is a compile-time error
// there.
#pragma once

#include <functional>
#include <type_traits>
#include <utility>

#include <distlock/duration.h>
#include <distlock/spec.h>

namespace distlock {

struct NoFallback {};
// What a free function's guard passes where a member's passes `this`.
struct NoObject {};
inline constexpr NoObject no_object{};  // the NoObject a free function's guard passes

// An attribute's arguments as the woven guard holds them: a constant of this type.
template <class Fallback>
struct Annotation {
  LockSpec spec;      // the lock, as spec() makes it from the arguments
  Fallback fallback;  // on_busy(fallback(&f))'s f, or NoFallback
};

namespace annotation_detail {

template <class Option>
struct IsFallback : std::false_type {};
template <class Function>
struct IsFallback<option::OnBusy<option::Fallback<Function>>> : std::true_type {};

constexpr NoFallback fallback_in() { return {}; }
template <class First, class... Rest>
constexpr auto fallback_in(const First& first, const Rest&... rest) {
  if constexpr (IsFallback<First>::value) {
    return first.policy.function;
  } else {
    return fallback_in(rest...);
  }
}

template <class Result>
inline constexpr bool kCanSkip =
    std::is_void_v<Result> || (std::is_object_v<Result> && std::is_default_constructible_v<Result>);

template <class Result, class Fallback, class Object, class... Args>
constexpr bool fallback_fits() {
  if constexpr (std::is_same_v<Fallback, NoFallback>) {
    return true;
  } else if constexpr (std::is_member_function_pointer_v<Fallback>) {
    return std::is_invocable_r_v<Result, Fallback, Object, Args...>;
  } else {
    return std::is_invocable_r_v<Result, Fallback, Args...>;
  }
}

// Only an on_busy(skip) or on_busy(fallback) guard is ever busy; the checks at the
// attribute keep a raise guard from getting here with a result it could not make.
[[noreturn]] void unreachable_busy_result();

}  // namespace annotation_detail

template <class... Options>
constexpr auto annotation(TypeName type, DurationArg ttl, Options... options)
    -> Annotation<decltype(annotation_detail::fallback_in(options...))> {
  return {spec(type, ttl, options...), annotation_detail::fallback_in(options...)};
}

// on_busy(skip) needs a result it can make from nothing: void, or a value-initialized object.
template <class Result, class Fallback>
constexpr bool skip_fits(const Annotation<Fallback>& annotation) {
  return annotation.spec.on_busy != OnBusy::skip || annotation_detail::kCanSkip<Result>;
}

// on_busy(fallback(&f)) calls f with the function's arguments (a member function pointer on
// the same object) and returns what f returns as the function's result.
template <class Result, class Object, class... Args, class Fallback>
constexpr bool fallback_fits(const Annotation<Fallback>&) {
  return annotation_detail::fallback_fits<Result, Fallback, Object, Args...>();
}

// Whether the annotation asks for anything when busy (a guard that cannot return a result,
// in a constructor or a function whose return type is deduced, asserts that it does not).
template <class Fallback>
constexpr bool raises_when_busy(const Annotation<Fallback>& annotation) {
  return annotation.spec.on_busy == OnBusy::raise;
}

// Whether the annotation has a fallback (a guard that cannot name every argument asserts that
// it does not).
template <class Fallback>
constexpr bool calls_fallback(const Annotation<Fallback>&) {
  return !std::is_same_v<Fallback, NoFallback>;
}

// What the locked function returns when its lock stayed busy: the fallback's result, or a
// value-initialized one.
template <class Result, class Fallback, class Object, class... Args>
Result busy_result(const Annotation<Fallback>& annotation, Object object, Args&&... args) {
  if constexpr (!std::is_same_v<Fallback, NoFallback>) {
    if constexpr (std::is_member_function_pointer_v<Fallback>) {
      if constexpr (std::is_invocable_v<Fallback, Object, Args&&...>)
        return static_cast<Result>(
            std::invoke(annotation.fallback, object, std::forward<Args>(args)...));
    } else {
      if constexpr (std::is_invocable_v<Fallback, Args&&...>)
        return static_cast<Result>(std::invoke(annotation.fallback, std::forward<Args>(args)...));
    }
    annotation_detail::unreachable_busy_result();
  } else if constexpr (std::is_void_v<Result>) {
    return;
  } else if constexpr (annotation_detail::kCanSkip<Result>) {
    return Result();
  } else {
    annotation_detail::unreachable_busy_result();
  }
}

}  // namespace distlock
