// SPDX-License-Identifier: Apache-2.0
// Redis Cluster's hash slots: which of the 16384 slots a key lives in. Every key of one lock
// carries the lock name as its hash tag ({...}), so a lock's keys share one slot.
#pragma once

#include <cstdint>
#include <string_view>

namespace distlock::detail::redis {

inline constexpr int kHashSlots = 16384;

// CRC-16/XMODEM (polynomial 0x1021, initial value 0), as Redis Cluster hashes keys.
constexpr std::uint16_t crc16(std::string_view data) {
  std::uint16_t crc = 0;
  for (const char c : data) {
    crc = static_cast<std::uint16_t>(crc ^ (static_cast<unsigned char>(c) << 8));
    for (int bit = 0; bit < 8; ++bit)
      crc = static_cast<std::uint16_t>((crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1);
  }
  return crc;
}

// The part of a key that is hashed: between the first '{' and the first '}' after it, if
// that is not empty; else the whole key.
constexpr std::string_view hash_tag(std::string_view key) {
  const auto open = key.find('{');
  if (open == std::string_view::npos) return key;
  const auto close = key.find('}', open + 1);
  if (close == std::string_view::npos || close == open + 1) return key;
  return key.substr(open + 1, close - open - 1);
}

constexpr int hash_slot(std::string_view key) { return crc16(hash_tag(key)) % kHashSlots; }

}  // namespace distlock::detail::redis
