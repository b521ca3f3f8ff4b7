// SPDX-License-Identifier: Apache-2.0
// One acquisition's contender in etcd's Mutex recipe (mutex_keys.h): a lease of its own, its key
// put under the lease, and where it stands among the lock's contenders. Each step is one round
// trip and blocks its caller; the waiting between steps is the caller's (the blocking acquire
// or the asynchronous waiter), on the deletion of the contender just ahead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <distlock/duration.h>

#include "backends/etcd/lease_shelf.h"
#include "backends/etcd/mutex_keys.h"
#include "backends/etcd/rpc_client.h"
#include "core/stats.h"
#include "util/steady_clock.h"

namespace distlock::detail::etcd {

// Where a contender stands after a look at the lock's contenders.
struct Standing {
  bool holds = false;
  // Not holding: the contender just ahead, whose deletion to wait for.
  std::optional<Contender> ahead;
  // The key is gone (its lease expired while it waited): it must enter again.
  bool gone = false;
  // The revision of the listing: a watch from the next one misses no deletion after it.
  std::int64_t listed_at = 0;
};

class MutexContender {
 public:
  // `value` is what the key holds (which acquisition, which process: for operators). Leases
  // come from `shelf` when it has one for the ttl.
  MutexContender(RpcClient& rpc, LeaseShelf& shelf, StatsCounters& stats, std::string prefix,
                 Millis ttl, std::string value);
  MutexContender(const MutexContender&) = delete;
  MutexContender& operator=(const MutexContender&) = delete;

  // Takes a lease (a shelved one, or a new one: a round trip), puts the key under it and looks
  // in one transaction. Throws RpcError.
  Standing enter();
  // Looks again, after a wake-up. Throws RpcError.
  Standing look();
  // Keeps the lease alive; false when it is gone (and the key with it). Throws RpcError.
  bool keep_alive();
  // Revokes the lease, deleting the key, without waiting. The contender can enter again.
  void leave();

  // When the lease should next be kept alive: a third of its ttl after the last time it was.
  SteadyClock::time_point keep_alive_due() const;
  // When the request that last confirmed the lease was sent: validity counts from here.
  SteadyClock::time_point alive_since() const { return alive_since_; }

  const std::string& prefix() const { return prefix_; }
  const std::string& key() const { return key_; }
  std::int64_t lease() const { return lease_; }
  std::int64_t revision() const { return revision_; }
  Millis ttl() const { return ttl_; }

 private:
  // Puts the key under lease_ and lists the contenders; throws RpcError.
  etcdserverpb::TxnResponse put_and_list();
  Standing standing_in(const etcdserverpb::RangeResponse& listing) const;
  etcdserverpb::RangeRequest children() const;

  RpcClient& rpc_;
  LeaseShelf& shelf_;
  StatsCounters& stats_;
  const std::string prefix_;
  const Millis ttl_;
  const std::string value_;
  std::string key_;
  std::int64_t lease_ = 0;
  std::int64_t revision_ = 0;
  SteadyClock::time_point alive_since_{};
};

}  // namespace distlock::detail::etcd
