// SPDX-License-Identifier: Apache-2.0
// What a Redis server may take away by itself: a server with a maxmemory and any policy but
// noeviction evicts keys when it runs out of memory, and a lock's keys all have a ttl, which
// every volatile-* policy picks from (allkeys-* pick from every key). An evicted lock is free
// for the next taker while its holder works on until its next renewal finds it gone. A backend
// reads the policy of each master it comes to (the first, and each after a failover) and
// warns; `distlock server` shows it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace distlock::detail::redis {

class Connection;

struct MemoryPolicy {
  std::uint64_t maxmemory = 0;  // bytes; 0: no limit
  std::string policy;           // maxmemory-policy: "noeviction", "volatile-lru", ...
};

// The maxmemory and maxmemory_policy lines of INFO memory's text; nullopt when one is missing.
std::optional<MemoryPolicy> parse_memory_info(std::string_view info);

struct EvictionVerdict {
  bool may_evict_locks = false;
  // Why, naming the policy, and what to configure when the locks are at risk.
  std::string reason;
};

EvictionVerdict judge_eviction(const MemoryPolicy& memory);

// What INFO memory says of the server: its policy, or why it could not be read.
struct MemoryPolicyReading {
  std::optional<MemoryPolicy> memory;
  // Set when `memory` is not: the server's refusal (an ACL user without +info gets NOPERM),
  // and what to do about it.
  std::string unreadable;
};

// Sends INFO memory. Throws ServerError when the exchange fails (not for an error reply).
MemoryPolicyReading read_memory_policy(Connection& connection);

// The server `connection` reaches, as the warning and `distlock server` name it: the URL's
// server, and for the master a Sentinel named (`master_of_sentinel`) its address too.
std::string server_name(const Connection& connection, bool master_of_sentinel);

// When a backend first connects, and after each failover: logs a warning naming the server and
// its policy when the server may evict lock keys, or saying that it would not tell.
void warn_if_locks_may_be_evicted(Connection& connection, bool master_of_sentinel);

}  // namespace distlock::detail::redis
