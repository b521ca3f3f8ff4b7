// SPDX-License-Identifier: Apache-2.0
// A contender for one of a semaphore's permits (key_layout.h), as Curator's
// InterProcessSemaphoreV2 on ZooKeeper: contenders queue in a Mutex at <prefix>/locks; the one
// it admits puts its permit key under <prefix>/leases and counts the permit keys there. With
// no more than the semaphore's permits it holds, and leaves the Mutex to the next; with more, it
// waits for any permit key's deletion, the others wait behind it in the Mutex: a release wakes
// one contender.
//
// When nobody queues, one transaction puts the permit key and counts: a semaphore with a permit
// free is one round trip. Finding none free, the contender takes its permit key back and
// queues.
#pragma once

#include <cstdint>
#include <string>

#include "backends/etcd/contender.h"

namespace distlock::detail::etcd {

class SemaphoreContender final : public Contender {
 public:
  SemaphoreContender(RpcClient& rpc, LeaseShelf& shelf, StatsCounters& stats,
                     const std::string& prefix, std::uint32_t permits, Millis ttl,
                     std::string value, SteadyClock::time_point caller_deadline);

  Standing look() override;

 private:
  Standing put_and_look() override;
  // Admitted by the entry Mutex: puts the permit key and counts.
  Standing count_permits();
  // Where a listing of the entry Mutex leaves the contender; admitted, it counts at once.
  Standing queued(const etcdserverpb::RangeResponse& entries);
  // Where a listing of the permit keys leaves a contender the Mutex admitted.
  Standing counted(const etcdserverpb::RangeResponse& permits);
  etcdserverpb::RangeRequest entries() const;
  etcdserverpb::RangeRequest permit_keys() const;

  const std::string entry_prefix_;
  const std::string permit_prefix_;
  const std::uint32_t permits_;
  // The contender's keys under its current lease.
  std::string entry_key_;
  std::string permit_key_;
  std::int64_t entry_revision_ = 0;
  // Admitted by the Mutex: its permit key is put, and it counts.
  bool admitted_ = false;
};

}  // namespace distlock::detail::etcd
