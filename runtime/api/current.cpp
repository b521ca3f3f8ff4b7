// SPDX-License-Identifier: Apache-2.0
#include <distlock/current.h>

#include "core/held_leases.h"

namespace distlock {
namespace detail {

[[noreturn]] void throw_lost_during_step(const Lease& lease) {
  throw LockLost(lease.name(), lease.server(),
                 "the lease ran out during a checked step; the step was undone");
}

[[noreturn]] void throw_no_current_lease() {
  throw ConfigError("", "",
                    "checked(): this thread holds no lease; call it inside a locked function "
                    "or pass the lease: checked(lease, op, undo)");
}

}  // namespace detail

const Lease* current() { return detail::HeldLeases::innermost(); }

std::vector<const Lease*> current_leases() { return detail::HeldLeases::innermost_group(); }

}  // namespace distlock
