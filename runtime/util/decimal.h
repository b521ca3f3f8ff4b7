// SPDX-License-Identifier: Apache-2.0
// Whole numbers written in decimal, as the servers store and return them (fences, counts,
// times in ms) and as URLs give them (ports, counts).
#pragma once

#include <charconv>
#include <cstdint>
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

// A TCP port, 1 to 65535, as URLs and Sentinel's replies write it; nullopt otherwise.
inline std::optional<std::uint16_t> parse_port(std::string_view text) {
  const auto port = parse_decimal<std::uint16_t>(text);
  if (!port || *port == 0) return std::nullopt;
  return port;
}

}  // namespace distlock::detail
