// SPDX-License-Identifier: Apache-2.0
// The leases of one client's asynchronous waiters, kept alive together. A waiter's lease must
// be kept alive while it waits (its keys name its place in the queue), and each keep-alive on
// its own would be a round trip and a stream on the executor's one thread: a thousand waiters
// on a 30 s ttl would make a hundred a second. When one waiter's keep-alive is due, every
// enlisted lease within a sixth of its ttl of being due goes on the same stream in the same
// round trip, so the waiters' keep-alives fall into step and cost about one round trip per
// third of a ttl. Used on the client's executor thread only, as the waiters are.
#pragma once

#include <unordered_set>

#include "backends/etcd/contender.h"
#include "backends/etcd/rpc_client.h"
#include "core/stats.h"

namespace distlock::detail::etcd {

class WaitingLeases {
 public:
  WaitingLeases(RpcClient& rpc, StatsCounters& stats) : rpc_(rpc), stats_(stats) {}

  // `contender` waits, and stays valid until discharged.
  void enlist(Contender& contender) { enlisted_.insert(&contender); }
  void discharge(Contender& contender) { enlisted_.erase(&contender); }

  // Keeps `due`'s lease alive, and in the same round trip every enlisted lease that will soon
  // be due; false when `due`'s lease is gone (its keys with it). Throws RpcError.
  bool keep_alive(Contender& due);

 private:
  RpcClient& rpc_;
  StatsCounters& stats_;
  std::unordered_set<Contender*> enlisted_;
};

}  // namespace distlock::detail::etcd
