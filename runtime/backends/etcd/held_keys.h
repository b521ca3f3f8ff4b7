// SPDX-License-Identifier: Apache-2.0
// This process's holds on etcd: for each (lock prefix, owner), the contender key it holds and
// the acquisitions sharing it. Reentrancy is local, as with ZooKeeper and as in Curator (etcd's
// own Mutex has none): a second acquisition by the same owner joins the hold; the key goes when
// the last one is released.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <distlock/duration.h>

#include "util/steady_clock.h"

namespace distlock::detail::etcd {

struct HeldKey {
  std::string key;  // the contender key
  std::int64_t lease = 0;
  std::int64_t revision = 0;  // its create revision: the fence
  Millis ttl{0};              // what the lease was granted for
  // When the request that last confirmed the lease was sent.
  SteadyClock::time_point alive_since{};
};

class HeldKeys {
 public:
  std::optional<HeldKey> find(std::string_view prefix, std::string_view owner) const;
  // Records a new hold: `key` was just granted to `acquisition_id`.
  void add(std::string_view prefix, std::string_view owner, HeldKey key,
           std::string_view acquisition_id);
  // Adds `acquisition_id` to the hold on `key`; false when that hold is gone meanwhile.
  bool join(std::string_view prefix, std::string_view owner, const HeldKey& key,
            std::string_view acquisition_id);
  // Forgets the hold on `key` (it is gone from the server) and its acquisitions.
  void forget(std::string_view prefix, std::string_view owner, const HeldKey& key);

  struct Removal {
    bool known = false;            // the acquisition held something
    std::optional<HeldKey> ended;  // it was the hold's last: its key is to be deleted
  };
  Removal remove(std::string_view acquisition_id);
  // The key an acquisition holds.
  std::optional<HeldKey> of(std::string_view acquisition_id) const;
  // The server confirmed `lease` by a request sent at `sent_at`.
  void confirmed(std::int64_t lease, SteadyClock::time_point sent_at);

 private:
  struct Hold {
    HeldKey key;
    std::unordered_set<std::string> acquisitions;
  };
  static std::string hold_name(std::string_view prefix, std::string_view owner);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Hold> holds_;
  std::unordered_map<std::string, std::string> hold_of_;         // acquisition id -> hold name
  std::unordered_map<std::int64_t, std::string> hold_of_lease_;  // lease -> hold name
};

}  // namespace distlock::detail::etcd
