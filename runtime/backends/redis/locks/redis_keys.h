// SPDX-License-Identifier: Apache-2.0
// The Redis keys and channel of one lock. All share the hash tag {NAME}, so they sit in one
// Cluster slot and one script may touch them all. Names arrive escaped: never '{' or '}'.
#pragma once

#include <string>
#include <string_view>

namespace distlock::detail::redis {

// The exclusive lock's hash: owner, hold count, fence, metadata and one "h:<acquisition id>"
// per hold.
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

// A read-write lock: the writer's hash (fields as the exclusive lock's), the readers' holds
// and the writers waiting for the readers to go; and where releases are published. The
// exclusive lock and the read-write lock of one name are two locks.
inline std::string writer_key(std::string_view name) { return lock_key(name) + ":rw"; }
inline std::string reader_expiries_key(std::string_view name) {
  return lock_key(name) + ":rw:readers";
}
inline std::string reader_holders_key(std::string_view name) {
  return lock_key(name) + ":rw:readers:holders";
}
inline std::string waiting_writers_key(std::string_view name) {
  return lock_key(name) + ":rw:writers";
}
inline std::string read_write_channel(std::string_view name) {
  return lock_key(name) + ":rw:released";
}

// A fair lock's waiters, in arrival order, when each one's place expires, and what a release
// needs to grant the lock to each. The lock itself is the exclusive lock's hash.
inline std::string queue_key(std::string_view name) { return lock_key(name) + ":queue"; }
inline std::string queue_expiries_key(std::string_view name) {
  return lock_key(name) + ":queue:expiries";
}
inline std::string queue_grants_key(std::string_view name) {
  return lock_key(name) + ":queue:grants";
}

// A semaphore: its permits' holds, and where a permit's release is published.
inline std::string permit_expiries_key(std::string_view name) {
  return lock_key(name) + ":permits";
}
inline std::string permit_holders_key(std::string_view name) {
  return lock_key(name) + ":permits:holders";
}
inline std::string permits_channel(std::string_view name) {
  return lock_key(name) + ":permits:released";
}

}  // namespace distlock::detail::redis
