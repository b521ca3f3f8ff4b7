// SPDX-License-Identifier: Apache-2.0
// The leases each thread holds, innermost last, behind distlock::current().
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/lease.h>

#include "core/lease_state.h"

namespace distlock::detail {

class HeldLeases {
 public:
  // Called on the acquiring thread when a lease is granted.
  static void push(std::shared_ptr<LeaseState> lease);
  // Called when a lease is released; only the acquiring thread's list is touched, other
  // threads drop released and handed-over leases lazily.
  static void pop(const LeaseState& lease);
  // The first lease of the innermost group: a lease alone, or the leases of one per_key call.
  static const Lease* innermost();
  // Makes the last `count` leases pushed one group, whose first is what innermost() returns.
  static void group_last(std::size_t count);
  // Every lease of the innermost group, first first.
  static std::vector<const Lease*> innermost_group();
  // A lease of `mode` on lock `name` that this thread holds from the client instance
  // `instance_id`: not released, lost, handed over, nor a semaphore's permit. Null when there
  // is none.
  static const LeaseState* holding(std::string_view instance_id, std::string_view name, Mode mode);
  // Whether this thread acquired a lease on lock `name` that it handed over (moved away) and
  // that is not released yet.
  static bool handed_over(std::string_view name);
};

}  // namespace distlock::detail
