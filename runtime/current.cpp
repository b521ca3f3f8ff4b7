#include <distlock/current.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "current_leases.h"

namespace distlock {
namespace detail {
namespace {

// Unique pointers keep each view at a fixed address while the vector grows.
thread_local std::vector<std::unique_ptr<Lease>> held_leases;

}  // namespace

void CurrentLeases::push(std::shared_ptr<LeaseState> lease) {
  innermost();
  held_leases.push_back(std::unique_ptr<Lease>(new Lease(Lease::Borrowed{}, std::move(lease))));
}

void CurrentLeases::pop(const LeaseState& lease) {
  if (lease.acquiring_thread() != std::this_thread::get_id()) return;
  const auto found = std::find_if(held_leases.rbegin(), held_leases.rend(), [&](const auto& view) {
    return view->state_.get() == &lease;
  });
  if (found != held_leases.rend()) held_leases.erase(std::next(found).base());
}

const Lease* CurrentLeases::innermost() {
  while (!held_leases.empty() && held_leases.back()->state_->released()) held_leases.pop_back();
  return held_leases.empty() ? nullptr : held_leases.back().get();
}

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

const Lease* current() { return detail::CurrentLeases::innermost(); }

}  // namespace distlock
