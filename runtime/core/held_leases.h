// The leases each thread holds, innermost last, behind distlock::current().
#pragma once

#include <memory>

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
};

}  // namespace distlock::detail
