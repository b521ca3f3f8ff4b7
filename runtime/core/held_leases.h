// The leases each thread holds, innermost last, behind distlock::current().
#pragma once

#include <memory>
#include <string_view>

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
  static const Lease* innermost();
  // Whether this thread holds a lease on lock `name` as `owner`, not released nor lost.
  static bool holds(std::string_view name, std::string_view owner);
};

}  // namespace distlock::detail
