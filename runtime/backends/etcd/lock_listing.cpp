// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/lock_listing.h"

#include <algorithm>
#include <map>
#include <utility>

#include <distlock/error.h>

#include "admin/holder_text.h"
#include "admin/lock_inspector.h"
#include "backends/etcd/key_layout.h"

namespace distlock::detail::etcd {
namespace {

using admin::HoldKind;

// One key of a lock, as listed.
struct LockedKey {
  KeyRole role = KeyRole::mutex;
  std::string key;
  std::int64_t revision = 0;
  std::int64_t lease = 0;
  admin::Holder holder;
};

admin::Holder holder_in(const std::string& value) {
  const HolderText text = parse_holder_text(value);
  return admin::Holder{text.last, text.host, text.pid};
}

HoldKind hold_kind_of(KeyRole role) {
  switch (role) {
    case KeyRole::read:
      return HoldKind::read;
    case KeyRole::write:
      return HoldKind::write;
    case KeyRole::semaphore_entry:
    case KeyRole::permit:
      return HoldKind::semaphore;
    case KeyRole::mutex:
      break;
  }
  return HoldKind::exclusive;
}

bool is_read_write(const LockedKey& key) {
  return key.role == KeyRole::read || key.role == KeyRole::write;
}

// Whether `key` holds among `keys` (oldest first) as its recipe judges it: a Mutex contender
// and a writer when no contender of their recipe is older, a reader when no writer is, a
// permit always (but one whose contender the entry Mutex admitted is still counting, below).
bool holds(const LockedKey& key, const std::vector<LockedKey>& keys) {
  for (const auto& older : keys) {
    if (older.revision >= key.revision) break;
    switch (key.role) {
      case KeyRole::mutex:
        if (older.role == KeyRole::mutex) return false;
        break;
      case KeyRole::read:
        if (older.role == KeyRole::write) return false;
        break;
      case KeyRole::write:
        if (is_read_write(older)) return false;
        break;
      case KeyRole::semaphore_entry:
      case KeyRole::permit:
        break;
    }
  }
  return key.role != KeyRole::semaphore_entry;
}

}  // namespace

LockListing::LockListing(RpcClient& rpc, std::string server)
    : rpc_(rpc), server_(std::move(server)) {}

std::optional<Millis> LockListing::time_left(std::string_view lock, std::int64_t lease) {
  if (lease == 0) return std::nullopt;
  try {
    const auto seconds = rpc_.lease_time_to_live(lease, rpc_.command_deadline());
    if (!seconds) return std::nullopt;
    return Millis{*seconds * 1000};
  } catch (const RpcError& error) {
    throw BackendUnavailable(std::string(lock), server_, error.reason());
  }
}

template <class Wanted>
std::vector<admin::LockState> LockListing::locks_in(std::string_view lock, const std::string& key,
                                                    const std::string& range_end,
                                                    const Wanted& wanted) {
  etcdserverpb::RangeRequest request;
  request.set_key(key);
  request.set_range_end(range_end);
  etcdserverpb::RangeResponse listed;
  try {
    listed = rpc_.range(request, rpc_.command_deadline());
  } catch (const RpcError& error) {
    throw BackendUnavailable(std::string(lock), server_, error.reason());
  }
  std::map<std::string, std::vector<LockedKey>> by_lock;
  for (const auto& kv : listed.kvs()) {
    const auto parsed = parse_lock_key(kv.key());
    if (!parsed || !wanted(parsed->lock)) continue;
    by_lock[parsed->lock].push_back(
        LockedKey{parsed->role, kv.key(), kv.create_revision(), kv.lease(), holder_in(kv.value())});
  }
  std::vector<admin::LockState> locks;
  for (auto& [name, keys] : by_lock) {
    std::sort(keys.begin(), keys.end(),
              [](const LockedKey& a, const LockedKey& b) { return a.revision < b.revision; });
    admin::LockState state;
    state.name = name;
    // The contender the semaphore's entry Mutex admitted counts the permits with its own permit
    // key put: while its entry key is there, it waits (or is about to let the Mutex go).
    const LockedKey* admitted = nullptr;
    for (const auto& locked : keys)
      if (locked.role == KeyRole::semaphore_entry) {
        admitted = &locked;
        break;
      }
    for (const auto& locked : keys) {
      const bool counting =
          locked.role == KeyRole::permit && admitted != nullptr && locked.lease == admitted->lease;
      const HoldKind kind = hold_kind_of(locked.role);
      if (counting || !holds(locked, keys)) {
        if (!counting) state.waiters.push_back(admin::Waiter{kind, locked.holder, locked.key});
        continue;
      }
      admin::Hold hold;
      hold.kind = kind;
      hold.holder = locked.holder;
      hold.time_left = time_left(name, locked.lease);
      hold.fence = static_cast<std::uint64_t>(locked.revision);
      hold.location = locked.key;
      state.holds.push_back(std::move(hold));
    }
    if (!state.holds.empty() || !state.waiters.empty()) locks.push_back(std::move(state));
  }
  return locks;
}

std::vector<admin::LockState> LockListing::list(std::string_view pattern) {
  const std::string root(kLockRoot);
  return locks_in("", root + '/', children_range_end(root),
                  [&](const std::string& name) { return name_matches(pattern, name); });
}

std::optional<admin::LockState> LockListing::read(const std::string& name) {
  const std::string prefix = lock_prefix(name);
  auto found = locks_in(name, prefix + '/', children_range_end(prefix),
                        [&](const std::string& lock) { return lock == name; });
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
}

}  // namespace distlock::detail::etcd
