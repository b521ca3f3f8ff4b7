#include "owner_token.h"

#include <atomic>
#include <cstdint>
#include <random>

namespace distlock::detail {

std::string make_instance_id() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device source;
  std::string id;
  for (int word = 0; word < 4; ++word) {
    const std::uint32_t bits = source();
    for (int shift = 28; shift >= 0; shift -= 4) id += kHex[(bits >> shift) & 0xF];
  }
  return id;
}

std::string owner_token(const std::string& instance_id) {
  static std::atomic<std::uint64_t> next_thread_number{1};
  thread_local const std::uint64_t thread_number = next_thread_number.fetch_add(1);
  return instance_id + ":" + std::to_string(thread_number);
}

}  // namespace distlock::detail
