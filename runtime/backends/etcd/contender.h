// SPDX-License-Identifier: Apache-2.0
// One acquisition's contender in one of etcd's lock recipes (key_layout.h): a lease of its own,
// its keys put under the lease, and where it stands among the lock's contenders. Each step is a
// round trip that blocks its caller; the waiting between steps is the caller's (the blocking
// acquire or the asynchronous waiter), on the deletion the standing names. The recipes differ
// in the keys they put and in what a look finds: queue_contender.h (Mutex, RWMutex),
// semaphore_contender.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <distlock/duration.h>

#include "backends/etcd/deletion_watcher.h"
#include "backends/etcd/lease_shelf.h"
#include "backends/etcd/rpc_client.h"
#include "core/stats.h"
#include "util/steady_clock.h"

namespace distlock::detail::etcd {

// Where a contender stands after a look at the lock's contenders.
struct Standing {
  bool holds = false;
  // Not holding: the deletion to wait for.
  std::optional<WatchTarget> wait_for;
  // Its keys are gone (its lease expired while it waited): it must enter again.
  bool gone = false;
  // The revision of the listing: a watch from the next one misses no deletion after it.
  std::int64_t listed_at = 0;
};

class Contender {
 public:
  // `value` is what the keys hold (which acquisition, which process: for operators). Leases
  // come from `shelf` when it has one for the ttl. Each step ends by `caller_deadline` (the
  // acquisition's) when that comes before command_timeout.
  Contender(RpcClient& rpc, LeaseShelf& shelf, StatsCounters& stats, Millis ttl, std::string value,
            SteadyClock::time_point caller_deadline);
  virtual ~Contender() = default;
  Contender(const Contender&) = delete;
  Contender& operator=(const Contender&) = delete;

  // Takes a lease (a shelved one, or a new one: a round trip), puts the keys under it and
  // looks. Throws RpcError.
  Standing enter();
  // Looks again, after a wake-up. Throws RpcError.
  virtual Standing look() = 0;
  // Keeps the lease alive; false when it is gone (and the keys with it). Throws RpcError.
  bool keep_alive();
  // The server confirmed the lease to a keep-alive sent at `sent_at` (one of several leases
  // kept alive together: waiting_leases.h).
  void kept_alive(SteadyClock::time_point sent_at) { alive_since_ = sent_at; }
  // Revokes the lease, deleting the keys, without waiting. The contender can enter again.
  void leave();

  // When the lease should next be kept alive: a third of its ttl after the last time it was.
  SteadyClock::time_point keep_alive_due() const;
  // When the request that last confirmed the lease was sent: validity counts from here.
  SteadyClock::time_point alive_since() const { return alive_since_; }

  // Once it holds: the key that holds the lock, and its create revision (the fence).
  const std::string& key() const { return key_; }
  std::int64_t revision() const { return revision_; }
  std::int64_t lease() const { return lease_; }
  Millis ttl() const { return ttl_; }

 protected:
  // Puts the recipe's keys under lease() and looks. Throws RpcError (NOT_FOUND: no such
  // lease).
  virtual Standing put_and_look() = 0;

  // The contender holds through `key`, created at `revision`.
  void holds_through(std::string key, std::int64_t revision);
  RpcClient& rpc() { return rpc_; }
  // When a step made now gives up.
  SteadyClock::time_point step_until() const { return rpc_.command_deadline(caller_deadline_); }
  StatsCounters& stats() { return stats_; }
  const std::string& value() const { return value_; }

 private:
  RpcClient& rpc_;
  LeaseShelf& shelf_;
  StatsCounters& stats_;
  const Millis ttl_;
  const std::string value_;
  const SteadyClock::time_point caller_deadline_;
  std::string key_;
  std::int64_t lease_ = 0;
  std::int64_t revision_ = 0;
  SteadyClock::time_point alive_since_{};
};

}  // namespace distlock::detail::etcd
