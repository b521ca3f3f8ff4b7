// SPDX-License-Identifier: Apache-2.0
// Leases of released acquisitions, kept for the next acquisition of the same ttl: a lease is a
// round trip to grant, and a released one holds no key any more. A lease is taken from the
// shelf only while its next keep-alive would not be due yet (a third of its ttl after the last
// one the server confirmed), so its grant has as long to live as a new lease's would, counted
// from that confirmation. A lease left on the shelf is not kept alive: etcd drops it when its
// ttl runs out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include <distlock/duration.h>

#include "util/steady_clock.h"

namespace distlock::detail::etcd {

struct SpareLease {
  std::int64_t id = 0;
  // When the request that last confirmed it was sent.
  SteadyClock::time_point alive_since{};
};

class LeaseShelf {
 public:
  // A lease granted for `ttl`, with most of its life ahead; none when the shelf has none.
  std::optional<SpareLease> take(Millis ttl);
  // Shelves a lease granted for `ttl` whose key is gone. When the shelf for that ttl is full,
  // the oldest lease is handed back for the caller to revoke.
  std::optional<std::int64_t> put(Millis ttl, SpareLease lease);

 private:
  // Enough for the threads of a service that acquire locks of one ttl at once.
  static constexpr std::size_t kPerTtl = 16;

  std::mutex mutex_;
  std::map<Millis::rep, std::vector<SpareLease>> spares_;  // by ttl, the latest last
};

}  // namespace distlock::detail::etcd
