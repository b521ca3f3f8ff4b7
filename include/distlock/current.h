// SPDX-License-Identifier: Apache-2.0
// The lease this thread holds, and lost-lock handling around a critical step.
#pragma once

#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include <distlock/error.h>
#include <distlock/lease.h>

namespace distlock {

// The innermost lease this thread acquired and still holds, or nullptr. Inside a per_key call,
// its first lease (of the lowest lock name).
const Lease* current();
// Every lease of the innermost locked call this thread is in, first first: one, or per_key
// one per distinct key, each with its own name and fence. Empty outside a locked call.
std::vector<const Lease*> current_leases();

namespace detail {
[[noreturn]] void throw_lost_during_step(const Lease& lease);
[[noreturn]] void throw_no_current_lease();
}  // namespace detail

// Runs `op` only while `lease` is valid, and checks again afterwards: if the lease ran out
// while `op` ran, runs `undo` and throws LockLost. `undo` may take `op`'s result.
// Returns `op`'s result.
template <class Op, class Undo>
decltype(auto) checked(const Lease& lease, Op&& op, Undo&& undo) {
  lease.ensure_held();
  using Result = std::invoke_result_t<Op&>;
  if constexpr (std::is_void_v<Result>) {
    std::invoke(op);
    if (!lease.valid()) {
      std::invoke(undo);
      detail::throw_lost_during_step(lease);
    }
  } else {
    Result result = std::invoke(op);
    if (!lease.valid()) {
      if constexpr (std::is_invocable_v<Undo&, Result&>) {
        std::invoke(undo, result);
      } else {
        std::invoke(undo);
      }
      detail::throw_lost_during_step(lease);
    }
    return result;
  }
}

namespace detail {
// checked() on the lease a caller found for itself, which is nullptr when it holds none.
template <class Op, class Undo>
decltype(auto) checked_on(const Lease* lease, Op&& op, Undo&& undo) {
  if (lease == nullptr) throw_no_current_lease();
  return checked(*lease, std::forward<Op>(op), std::forward<Undo>(undo));
}
}  // namespace detail

// checked() on this thread's current() lease; throws ConfigError when it holds none.
template <class Op, class Undo>
decltype(auto) checked(Op&& op, Undo&& undo) {
  return detail::checked_on(current(), std::forward<Op>(op), std::forward<Undo>(undo));
}

}  // namespace distlock
