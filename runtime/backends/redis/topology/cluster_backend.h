// SPDX-License-Identifier: Apache-2.0
// Redis Cluster (redis+cluster://seed:port[,seed:port...]): each lock goes to the master of
// its hash slot (every key of a lock shares the slot, hash_slot.h), through one single-server
// backend per master (redis_backend.h). The slot map comes from CLUSTER SLOTS; a MOVED reply
// updates it and the command is sent again to the master named; an ASK reply (the slot is
// migrating and the keys are on the importing master) sends that one command there after
// ASKING. Release notifications use sharded pub/sub (SPUBLISH, SSUBSCRIBE): they go to the
// lock's slot, not to every node.
#pragma once

#include <memory>

#include <distlock/client.h>

#include "backends/backend.h"
#include "core/stats.h"
#include "util/url.h"

namespace distlock::detail::redis {

// Reads the slot map from the first seed that answers, for a URL options_for_scheme took (a
// seed at least, database 0). Throws BackendUnavailable when no seed answers or a seed is not a
// cluster node.
std::unique_ptr<Backend> make_cluster_backend(const Url& url, const Options& options,
                                              StatsCounters& stats);

}  // namespace distlock::detail::redis
