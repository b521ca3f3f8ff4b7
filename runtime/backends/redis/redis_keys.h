// The Redis keys and channel of one lock. All share the hash tag {NAME}, so they sit in one
// Cluster slot and one script may touch them all. Names arrive escaped: never '{' or '}'.
#pragma once

#include <string>
#include <string_view>

namespace distlock::detail::redis {

// The hash: owner, hold count, fence, metadata and one "h:<acquisition id>" per hold.
inline std::string lock_key(std::string_view name) {
  std::string key = "distlock:{";
  key += name;
  key += '}';
  return key;
}

// The fence counter. It has no expiry: it must outlive every holder.
inline std::string fence_key(std::string_view name) { return lock_key(name) + ":fence"; }

// Where the last release of a hold is published, to wake one waiter.
inline std::string release_channel(std::string_view name) { return lock_key(name) + ":released"; }

}  // namespace distlock::detail::redis
