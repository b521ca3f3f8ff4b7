// SPDX-License-Identifier: Apache-2.0
// Hexadecimal digits, for identifiers (lowercase) and percent-escapes (uppercase, as URLs
// write them).
#pragma once

#include <cstdint>
#include <string>

namespace distlock::detail {

enum class HexCase { lower, upper };

// Appends the low `digits` hex digits of `value`, most significant first, zeros kept.
inline void append_hex(std::string& out, std::uint64_t value, int digits,
                       HexCase letters = HexCase::lower) {
  const char* alphabet = letters == HexCase::lower ? "0123456789abcdef" : "0123456789ABCDEF";
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
    out += alphabet[(value >> shift) & 0xF];
}

}  // namespace distlock::detail
