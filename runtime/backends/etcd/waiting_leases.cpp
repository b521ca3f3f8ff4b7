// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/waiting_leases.h"

#include <cstdint>
#include <vector>

namespace distlock::detail::etcd {

bool WaitingLeases::keep_alive(Contender& due) {
  const auto sent_at = SteadyClock::now();
  std::vector<Contender*> batch{&due};
  for (Contender* other : enlisted_) {
    // Renewed up to a sixth of a ttl early: still long before any lease could run out.
    if (other != &due && other->lease() != 0 &&
        other->keep_alive_due() - other->ttl() / 6 <= sent_at)
      batch.push_back(other);
  }
  std::vector<std::int64_t> leases;
  leases.reserve(batch.size());
  for (const Contender* contender : batch) leases.push_back(contender->lease());
  ++stats_.round_trips;
  const auto ttl_left = rpc_.keep_alive(leases, rpc_.command_deadline());
  // A lease found gone other than `due`'s is left as it was: its waiter finds it gone at its
  // own keep-alive and enters again.
  for (std::size_t i = 0; i < batch.size(); ++i)
    if (ttl_left[i] > 0) batch[i]->kept_alive(sent_at);
  return ttl_left.front() > 0;
}

}  // namespace distlock::detail::etcd
