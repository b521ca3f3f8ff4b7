// SPDX-License-Identifier: Apache-2.0
// A Redis Cluster's slot map, read with CLUSTER SLOTS: which master serves each hash slot.
// The cluster backend routes each lock by it; the admin inspector lists every master's locks
// and reads or releases one lock on its slot's master.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <distlock/client.h>

#include "backends/redis/topology/hash_slot.h"
#include "backends/redis/transport/connection_settings.h"
#include "core/step_deadline.h"
#include "util/url.h"

namespace distlock::detail::redis {

struct SlotMap {
  std::vector<Address> masters;
  std::array<int, kHashSlots> master_of_slot{};  // index into masters; -1: no master
};

// CLUSTER SLOTS from the first of `candidates` that answers (each node asked once), connecting
// with `settings`' credentials and timeouts, each step cut at `caller_deadline` when that comes
// first (core/step_deadline.h); nodes left when it has passed are not asked. Throws
// BackendUnavailable naming `server` and each node's failure (one that is no cluster node
// included).
SlotMap read_slot_map(const ConnectionSettings& settings, const std::vector<Address>& candidates,
                      const std::string& server,
                      SteadyClock::time_point caller_deadline = kNoCallerDeadline);

// The cluster URL's credentials and options, for one of its nodes (a redis:// URL).
Url url_of_node(const Url& cluster, const Address& address);

// The URL's seed nodes, port 6379 where none is given.
std::vector<Address> seeds_of(const Url& cluster);

}  // namespace distlock::detail::redis
