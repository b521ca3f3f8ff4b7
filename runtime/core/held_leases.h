// The leases each thread holds, innermost last, behind distlock::current().
#pragma once

#include <memory>
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
  // threads drop released leases lazily.
  static void pop(const LeaseState& lease);
  // The first lease of the innermost group: a lease alone, or the leases of one per_key call.
  static const Lease* innermost();
  // Makes the last `count` leases pushed one group, whose first is what innermost() returns.
  static void group_last(std::size_t count);
  // Every lease of the innermost group, first first.
  static std::vector<const Lease*> innermost_group();
  // Whether this thread holds a lease of `mode` on lock `name` as `owner`, not released nor
  // lost, and not a semaphore's permit.
  static bool holds(std::string_view name, std::string_view owner, Mode mode);
};

}  // namespace distlock::detail
