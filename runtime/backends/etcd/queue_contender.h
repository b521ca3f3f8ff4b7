// SPDX-License-Identifier: Apache-2.0
// A contender of etcd's queue recipes (key_layout.h): concurrency.Mutex for the exclusive lock,
// recipes.RWMutex for its reader and writer sides. It puts one key; it holds when no key that
// holds it back is older than its own, and otherwise waits for the deletion of the youngest of
// those (the contender just ahead, for the Mutex), then looks again.
#pragma once

#include <cstdint>
#include <string>

#include "backends/etcd/contender.h"
#include "backends/etcd/key_layout.h"

namespace distlock::detail::etcd {

class QueueContender final : public Contender {
 public:
  QueueContender(RpcClient& rpc, LeaseShelf& shelf, StatsCounters& stats, std::string prefix,
                 Recipe recipe, Millis ttl, std::string value,
                 SteadyClock::time_point caller_deadline);

  Standing look() override;

 private:
  Standing put_and_look() override;
  Standing standing_in(const etcdserverpb::RangeResponse& listing);
  etcdserverpb::RangeRequest children() const;

  const std::string prefix_;
  const Recipe recipe_;
  std::string own_key_;
  std::int64_t own_revision_ = 0;
};

}  // namespace distlock::detail::etcd
