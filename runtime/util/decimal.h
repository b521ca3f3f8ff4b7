// Whole numbers written in decimal, as the servers store and return them (fences, counts,
// times in ms).
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace distlock::detail {

// `text` as a number of type Number if it is all digits (a '-' first for a signed type) and
// fits; nullopt otherwise.
template <class Number>
std::optional<Number> parse_decimal(std::string_view text) {
  Number value{};
  const char* const end = text.data() + text.size();
  const auto [last, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || last != end) return std::nullopt;
  return value;
}

}  // namespace distlock::detail
