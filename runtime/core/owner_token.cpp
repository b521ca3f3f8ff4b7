// SPDX-License-Identifier: Apache-2.0
#include "core/owner_token.h"

#include <random>

#include "util/hex.h"

namespace distlock::detail {

std::string make_instance_id() {
  std::random_device source;
  std::string id;
  for (int word = 0; word < 4; ++word) append_hex(id, source(), 8);
  return id;
}

std::string async_owner_token(const std::string& instance_id, std::uint64_t serial) {
  return instance_id + ":a" + std::to_string(serial);
}

bool token_of_instance(std::string_view token, std::string_view instance_id) {
  return token.size() > instance_id.size() && token.starts_with(instance_id) &&
         token[instance_id.size()] == ':';
}

const std::shared_ptr<ThreadOwner>& ThreadOwner::of_this_thread() {
  static std::atomic<std::uint64_t> next_thread_number{1};
  thread_local const std::shared_ptr<ThreadOwner> owner =
      std::make_shared<ThreadOwner>(next_thread_number.fetch_add(1));
  return owner;
}

std::string ThreadOwner::token(const std::string& instance_id) const {
  return instance_id + ":" + std::to_string(thread_number_) + "." +
         std::to_string(handovers_.load(std::memory_order_acquire));
}

}  // namespace distlock::detail
