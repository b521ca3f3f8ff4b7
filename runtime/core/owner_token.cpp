#include "core/owner_token.h"

#include <atomic>
#include <cstdint>
#include <random>

#include "util/hex.h"

namespace distlock::detail {

std::string make_instance_id() {
  std::random_device source;
  std::string id;
  for (int word = 0; word < 4; ++word) append_hex(id, source(), 8);
  return id;
}

std::string owner_token(const std::string& instance_id) {
  static std::atomic<std::uint64_t> next_thread_number{1};
  thread_local const std::uint64_t thread_number = next_thread_number.fetch_add(1);
  return instance_id + ":" + std::to_string(thread_number);
}

}  // namespace distlock::detail
