// SPDX-License-Identifier: Apache-2.0
// Where a lock lives in ZooKeeper and how its contenders are named and ordered: the node
// names and rules of Apache Curator's InterProcessMutex, InterProcessReadWriteLock and
// InterProcessSemaphoreV2, so a Curator client and a distlock client on the same path exclude
// each other.
//
//   lock "order"           -> /distlock/order
//   lock "order:alice:42"  -> /distlock/order/alice:42
//   contenders             -> <lock path>/_c_<uuid>-lock-<seq>       (exclusive)
//                             <lock path>/_c_<uuid>-__READ__<seq>    (read)
//                             <lock path>/_c_<uuid>-__WRIT__<seq>    (write)
//   a semaphore's mutex    -> <lock path>/locks/_c_<uuid>-lock-<seq>
//   a semaphore's leases   -> <lock path>/leases/_c_<uuid>-lease-<seq>
//   election "scheduler"   -> /distlock/elections/scheduler/_c_<uuid>-latch-<seq>  (LeaderLatch)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/spec.h>

namespace distlock::detail::zookeeper {

inline constexpr std::string_view kLockRoot = "/distlock";

// The parents of a contender are containers, which the server removes while they are empty:
// between our creating them and our contender, another client's last node can go and take them
// along. That many rounds of creating them, then give up.
inline constexpr int kParentRounds = 8;

// The lock node of an escaped lock name. A path component that could not be one as written
// ("", ".", "..") or that could pass for a contender (a key beginning with '_') is
// written with a %-escape the name escaping never produces ("%", "%2E", "%5F").
std::string lock_path(std::string_view name);
// The part of a lock name a path component below the lock root stands for: lock_path's
// escapes undone ("%" -> "", "%2E" -> ".", "%5Fx" -> "_x").
std::string name_part(std::string_view component);
// The nodes above a lock node, outermost first: /distlock, /distlock/<type>.
std::vector<std::string> lock_path_parents(std::string_view path);

// A fresh random UUID, 8-4-4-4-12 lower-case hex (Curator's protected-mode id).
std::string random_uuid();
// "_c_<uuid>-" + the mode's marker; the server appends the sequence number.
std::string contender_prefix(std::string_view uuid, Mode mode);
// An election's contender, as Curator's LeaderLatch names it: "_c_<uuid>-latch-". It contends
// as an exclusive one (the first leads; each other watches the one before it).
std::string latch_prefix(std::string_view uuid);

// A semaphore's children, as InterProcessSemaphoreV2 names them: the mutex a contender holds
// while it adds its lease, and the parent of the leases.
std::string semaphore_mutex_path(std::string_view lock_path);
std::string semaphore_leases_path(std::string_view lock_path);
// "_c_<uuid>-lease-"; the server appends the sequence number.
std::string lease_prefix(std::string_view uuid);

enum class ContenderKind { exclusive, read, write };

struct Contender {
  std::string name;
  ContenderKind kind;
  std::string sequence;  // the digits after the marker: what contenders are ordered by
};

// Parses a child of a lock node; nullopt for anything not named as a contender (another
// recipe's node, a keyed sub-lock's node).
std::optional<Contender> parse_contender(std::string_view name);
// The contenders among `children`, in lock order (by sequence, then by name).
std::vector<Contender> contenders(const std::vector<std::string>& children);
// Whether a node is named with `uuid` ("_c_<uuid>-...").
bool named_with_uuid(std::string_view name, std::string_view uuid);
// "<parent>/<child>".
inline std::string child_path(std::string_view parent, std::string_view child) {
  std::string path(parent);
  path += '/';
  path += child;
  return path;
}
// The last component of a node's path: "/distlock/order/_c_x-lock-1" -> "_c_x-lock-1".
inline std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }
// The child named with `uuid` (a create whose reply was lost), if any.
std::optional<std::string> find_by_uuid(const std::vector<std::string>& children,
                                        std::string_view uuid);

struct Verdict {
  bool present = false;  // our node is among the contenders
  bool granted = false;
  std::string watch;  // when not granted: the contender to wait behind
};

// Exclusive and write: granted when first of all; otherwise wait behind the one just before.
// Read: granted when no exclusive or write contender is before it; otherwise wait behind the
// nearest such contender before it.
Verdict judge(const std::vector<Contender>& ordered, std::string_view ours, Mode mode);

}  // namespace distlock::detail::zookeeper
