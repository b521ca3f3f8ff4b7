// SPDX-License-Identifier: Apache-2.0
// Durations as a lock spec takes them: any std::chrono::duration, an integer number of
// milliseconds, or text such as "30s", "500ms", "2m", "1h" or "1m30s".
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include <distlock/error.h>
#include <distlock/standard.h>

namespace distlock {

// Every duration of the API (ttl, wait, timeouts), in milliseconds.
using Millis = std::chrono::milliseconds;

namespace detail {

// Thrown only from constant evaluation, where it becomes a compile-time error whose
// note quotes this function's throw expression.
[[noreturn]] inline void error_bad_duration_write_a_number_and_ms_s_m_or_h(std::string_view text) {
  throw ConfigError("", "",
                    "distlock: bad duration \"" + std::string(text) +
                        "\": write a number followed by ms, s, m or h, such as \"30s\"");
}

constexpr Millis parse_duration(std::string_view text) {
  if (text.empty()) error_bad_duration_write_a_number_and_ms_s_m_or_h(text);
  Millis total{0};
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] < '0' || text[i] > '9') error_bad_duration_write_a_number_and_ms_s_m_or_h(text);
    long long number = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (number > (Millis::max().count() - (text[i] - '0')) / 10)
        error_bad_duration_write_a_number_and_ms_s_m_or_h(text);
      number = number * 10 + (text[i] - '0');
      ++i;
    }
    std::size_t unit_end = i;
    while (unit_end < text.size() && (text[unit_end] < '0' || text[unit_end] > '9')) ++unit_end;
    const std::string_view unit = text.substr(i, unit_end - i);
    long long scale = 0;
    if (unit == "ms")
      scale = 1;
    else if (unit == "s")
      scale = 1000;
    else if (unit == "m")
      scale = 60LL * 1000;
    else if (unit == "h")
      scale = 60LL * 60 * 1000;
    else
      error_bad_duration_write_a_number_and_ms_s_m_or_h(text);
    if (number > Millis::max().count() / scale ||
        number * scale > Millis::max().count() - total.count())
      error_bad_duration_write_a_number_and_ms_s_m_or_h(text);
    total += Millis(number * scale);
    i = unit_end;
  }
  return total;
}

}  // namespace detail

// A duration argument of spec() and its options. Text literals are parsed at compile time.
class DurationArg {
 public:
  // A std::chrono duration, rounded up to whole milliseconds: 30s, 1500ms.
  template <class Rep, class Period>
  // NOLINTNEXTLINE(google-explicit-constructor)
  constexpr DurationArg(std::chrono::duration<Rep, Period> d)
      : value_(std::chrono::ceil<Millis>(d)) {}

  template <class Integer,
            std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool> &&
                                 !std::is_same_v<Integer, char>,
                             int> = 0>
  // An integer: milliseconds.
  constexpr DurationArg(Integer milliseconds)  // NOLINT(google-explicit-constructor)
      : value_(static_cast<Millis::rep>(milliseconds)) {}

  // A text literal, a number and a unit (ms, s, m or h): "5s", checked at compile time.
  template <std::size_t N>
  DISTLOCK_CONSTEVAL DurationArg(const char (&text)[N])  // NOLINT(google-explicit-constructor)
      : value_(detail::parse_duration(std::string_view(text, N - 1))) {}

  // Text read at run time, as the literal: a bad one throws ConfigError.
  constexpr DurationArg(std::string_view text)  // NOLINT(google-explicit-constructor)
      : value_(detail::parse_duration(text)) {}

  // The duration in milliseconds.
  constexpr Millis value() const { return value_; }

 private:
  Millis value_;
};

}  // namespace distlock
