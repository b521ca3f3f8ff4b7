// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/lease_shelf.h"

#include <utility>

namespace distlock::detail::etcd {

std::optional<SpareLease> LeaseShelf::take(Millis ttl) {
  const std::lock_guard lock(mutex_);
  const auto found = spares_.find(ttl.count());
  if (found == spares_.end()) return std::nullopt;
  auto& spares = found->second;
  const auto now = SteadyClock::now();
  // The latest first: it has the most life left. Those behind it are older still.
  while (!spares.empty()) {
    const SpareLease spare = spares.back();
    spares.pop_back();
    if (now < spare.alive_since + ttl / 3) return spare;
  }
  return std::nullopt;
}

std::optional<std::int64_t> LeaseShelf::put(Millis ttl, SpareLease lease) {
  const std::lock_guard lock(mutex_);
  auto& spares = spares_[ttl.count()];
  spares.push_back(lease);
  if (spares.size() <= kPerTtl) return std::nullopt;
  const std::int64_t oldest = spares.front().id;
  spares.erase(spares.begin());
  return oldest;
}

}  // namespace distlock::detail::etcd
