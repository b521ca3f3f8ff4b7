// SPDX-License-Identifier: Apache-2.0
// Inspecting and breaking the locks a server keeps, for operators (the `distlock` command) and
// for tools: which locks are held, by which acquisition of which process, since when, for how
// long still, with which fence, who waits; force-release of a stuck lock; and what the servers
// say of themselves, whether they may evict lock keys above all.
//
// Not for the locking path: listing walks the server's whole lock space (Redis SCAN, a walk
// of ZooKeeper's lock root, PostgreSQL's lock tables read whole, etcd's keys below the lock
// root), and a force-release takes a lock from a holder that may still be working under it (its
// next renewal finds the lock gone and reports it lost).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/client.h>
#include <distlock/duration.h>

namespace distlock {
namespace detail {
class LockInspector;
}

namespace admin {

// What a hold or a waiter is on its lock.
enum class HoldKind {
  exclusive,  // a plain exclusive lock
  fair,       // an exclusive lock granted in arrival order (Redis, PostgreSQL: one with waiters)
  read,       // a read-write lock's shared side
  write,      // a read-write lock's exclusive side
  semaphore,  // one permit of a semaphore
};

// "exclusive", "fair", "read", "write", "semaphore".
const char* to_string(HoldKind kind);

// Who holds or waits, as far as the server knows it. A holder that wrote no metadata (a
// Curator client on ZooKeeper) leaves the fields empty or zero.
struct Holder {
  std::string acquisition_id;  // the id the holder's Lease::id() gives
  std::string host;            // the holder's host name
  long long pid = 0;           // the holder's process id
};

// One hold of a lock: an exclusive or write holder, a reader, or a semaphore's permit.
struct Hold {
  HoldKind kind = HoldKind::exclusive;  // which side of the lock it holds
  Holder holder;                        // who holds it
  // When the hold was granted (Redis, PostgreSQL: the holder's clock; ZooKeeper: the server's
  // ctime). None on etcd, which keeps no time for a key.
  std::optional<std::chrono::system_clock::time_point> acquired_at;
  // How long the server keeps it without a renewal (etcd: its lease's time to live, in whole
  // seconds). None: until the holder's session ends (ZooKeeper).
  std::optional<Millis> time_left;
  std::uint64_t fence = 0;  // the fence the holder's lease has
  // Reentrant holds of the same owner (Redis, PostgreSQL's exclusive and fair locks); 1
  // otherwise.
  unsigned count = 1;
  // Released, but kept taken for a while by hold_at_least: nobody holds it.
  bool kept = false;
  // Where it lives: the Redis key (and member), the ZooKeeper node, the etcd key, or the
  // PostgreSQL table and its row's key ("<table> <name>", "<table>_holds <name> <acquisition
  // id>").
  std::string location;
};

// One caller waiting for a lock, where the backend keeps waiters on the server.
struct Waiter {
  HoldKind kind = HoldKind::exclusive;  // which side of the lock it waits for
  Holder holder;                        // who waits
  std::string location;                 // as Hold::location
};

// A lock as its server has it: who holds it, and who waits for it.
struct LockState {
  std::string name;         // as the runtime writes it: "<type>:<key>", key parts escaped
  std::vector<Hold> holds;  // every hold: one, or a read lock's readers, a semaphore's permits
  // In the order they will be granted where the backend keeps an order (ZooKeeper, etcd, a Redis
  // or PostgreSQL fair lock's queue); a read-write lock's waiting writers on Redis and PostgreSQL
  // in no particular order.
  std::vector<Waiter> waiters;
};

// What a force-release took away.
struct ReleasedHold {
  std::string name;  // the lock's name
  Hold hold;         // the hold that was taken away
};

// Whether a server may take locks away by itself: a Redis server with a maxmemory and any
// maxmemory-policy but noeviction evicts keys when its memory runs out, lock keys included.
enum class EvictionRisk {
  safe,            // it never evicts lock keys: noeviction, or no maxmemory
  at_risk,         // it may evict lock keys when its memory runs out
  unchecked,       // it would not say (an ACL user without +info)
  not_applicable,  // nothing there is evicted: ZooKeeper, etcd, PostgreSQL, memory://
};

// "safe", "at_risk", "unchecked", "not_applicable".
const char* to_string(EvictionRisk risk);

// What a server that keeps locks says of itself.
struct ServerFacts {
  // As messages name it (no password): the URL; a Redlock's or a Cluster's master by its own
  // redis:// URL; the master a Sentinel names by the URL and "(master <host>:<port>)".
  std::string server;
  std::string kind;     // "redis", "zookeeper", "etcd", "postgresql", "memory"
  std::string version;  // "7.0.15"; empty when the server does not say
  // Bytes, 0 for no limit; none when the server does not say, or has no such setting.
  std::optional<std::uint64_t> maxmemory;
  std::string maxmemory_policy;  // empty when the server does not say, or has no such setting
  EvictionRisk eviction = EvictionRisk::unchecked;  // whether it may evict lock keys
  // Why, naming the policy; what to configure when the locks are at risk, or to let the
  // command check.
  std::string reason;
};

// The locks on one server, seen and broken from outside their holders: what the distlock
// command runs on.
class LockAdmin {
 public:
  // Connects as Client::connect does, with the same URLs (memory:// excepted: another
  // process's in-process locks cannot be seen, and ConfigError says so). Throws ConfigError
  // for a bad URL, BackendUnavailable when the server cannot be reached.
  static std::unique_ptr<LockAdmin> connect(std::string_view url, const Options& options = {});

  // The library's own: connect() makes one.
  explicit LockAdmin(std::unique_ptr<detail::LockInspector> inspector);
  ~LockAdmin();
  LockAdmin(const LockAdmin&) = delete;
  LockAdmin& operator=(const LockAdmin&) = delete;

  // The locks held or waited for whose names match `pattern` (a shell glob: `*`, `?`,
  // `[...]`; empty: all), sorted by name.
  std::vector<LockState> list(std::string_view pattern = {});
  // The lock of exactly this name, if anyone holds or waits for it.
  std::optional<LockState> show(std::string_view name);
  // Removes every hold of the lock, or with `acquisition_id` only that acquisition's hold,
  // if it still holds the lock (atomically: a hold granted meanwhile to another acquisition
  // stays). Waiters keep their places and the fence counter is never reset, so the next
  // holder's fence is above every earlier one. Returns what was removed (empty: nothing).
  std::vector<ReleasedHold> force_release(
      std::string_view name, const std::optional<std::string>& acquisition_id = std::nullopt);

  // Every server that keeps the locks (the one server, the master a Sentinel names, every
  // master of a Redlock or a Cluster), each asked once. Throws BackendUnavailable when one
  // cannot be asked.
  std::vector<ServerFacts> servers();

  // The server, as messages name it (no password).
  const std::string& server() const;

 private:
  std::unique_ptr<detail::LockInspector> inspector_;
};

// LockAdmin::connect(url, options)->servers(), and for memory://, which has no server, one
// entry that says so.
std::vector<ServerFacts> describe_servers(std::string_view url, const Options& options = {});

}  // namespace admin
}  // namespace distlock
