// SPDX-License-Identifier: Apache-2.0
// Where a lock lives in etcd: the layouts of etcd's own recipes, so that `etcdctl lock` and a Go
// service's concurrency.NewMutex (or recipes.NewRWMutex) on the same prefix exclude distlock and
// are excluded by it.
//
//   lock "order"          -> prefix /distlock/order
//   lock "order:42"       -> prefix /distlock/order/42
//   exclusive contender   -> <prefix>/<lease id in lower-case hex>      (concurrency.Mutex)
//   reader, writer        -> <prefix>/read/<lease hex>, <prefix>/write/<lease hex>
//                                                                      (recipes.RWMutex)
//   semaphore             -> <prefix>/locks/<lease hex>: a Mutex at <prefix>/locks that admits
//                            one contender at a time to count the permits;
//                            <prefix>/leases/<lease hex>: one key per permit
//
// Every key is put under its acquisition's lease. Among the keys that hold a contender back,
// the one with the lowest create revision goes first; a key's create revision is its fence.
// Lock names escape '/' (design.md, "Lock name encoding"), so the only keys below a prefix
// that are not its own are other locks' (those of "order:42" below "order"): a contender is a
// key one level below its recipe's prefix whose last part is hexadecimal. (Go's RWMutex names
// its keys by the time in decimal nanoseconds: hexadecimal too.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "etcd_rpc.pb.h"

namespace distlock::detail::etcd {

inline constexpr std::string_view kLockRoot = "/distlock";

// Which of etcd's recipes a contender follows, and so which keys hold it back: a Mutex
// contender waits for the Mutex contenders ahead of it, a reader for the writers ahead, a
// writer for everyone ahead.
enum class Recipe { mutex, read, write };

std::string lock_prefix(std::string_view name);
// The key a contender of `recipe` puts under `lease`.
std::string contender_key(std::string_view prefix, Recipe recipe, std::int64_t lease);
// The end of the range of every key below `prefix` + '/' (etcd's prefix range).
std::string children_range_end(std::string_view prefix);

// The prefixes of a semaphore's two parts.
std::string semaphore_entry(std::string_view prefix);
std::string semaphore_permits(std::string_view prefix);

struct ListedKey {
  std::string key;
  std::int64_t create_revision = 0;
};

// What a key below the lock root is, for the admin API: whose and which part of its lock.
enum class KeyRole { mutex, read, write, semaphore_entry, permit };
struct LockKey {
  std::string lock;  // the lock's name, as the runtime writes it ("order:42")
  KeyRole role = KeyRole::mutex;
};
// None for a key that is no contender's. A key below read/, write/, locks/ or leases/ of a lock
// is that lock's reader, writer, semaphore entry or permit (not a contender of the lock named
// "<type>:read" and so on, whose keys look the same: use one lock kind per name).
std::optional<LockKey> parse_lock_key(std::string_view key);

// The contenders among `kvs` one level below `prefix`, oldest first.
std::vector<ListedKey> contenders_of(
    std::string_view prefix, const google::protobuf::RepeatedPtrField<mvccpb::KeyValue>& kvs);
// The keys among `kvs` (keys below the lock's `prefix`) that hold a contender of `recipe` back
// while they are older than it, oldest first.
std::vector<ListedKey> blocking_keys(
    std::string_view prefix, Recipe recipe,
    const google::protobuf::RepeatedPtrField<mvccpb::KeyValue>& kvs);

}  // namespace distlock::detail::etcd
