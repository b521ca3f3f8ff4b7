// SPDX-License-Identifier: Apache-2.0
#include "core/acquisition_id.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>

#include <distlock/key.h>

#include "util/hex.h"

namespace distlock::detail {
namespace {

// SplitMix64's finalizer: a bijection, so distinct inputs give distinct hashes.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint64_t process_salt() {
  static const std::uint64_t salt = [] {
    std::random_device source;
    return (static_cast<std::uint64_t>(source()) << 32) ^ source();
  }();
  return salt;
}

constexpr std::size_t kMaxPrefix = 32;

}  // namespace

std::string make_acquisition_id(std::string_view type) {
  static std::atomic<std::uint64_t> sequence{0};
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const auto nanos =
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
  // The sequence makes ids unique within the process; the salted time hash across processes.
  const std::uint64_t serial = sequence.fetch_add(1, std::memory_order_relaxed);

  std::string id = escape_name_part(type.substr(0, kMaxPrefix));
  id += '-';
  append_hex(id, mix(nanos ^ process_salt()), 16);
  id += '-';
  append_hex(id, serial, 8);
  return id;
}

}  // namespace distlock::detail
