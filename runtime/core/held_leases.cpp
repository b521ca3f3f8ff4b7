#include "core/held_leases.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace distlock::detail {
namespace {

// Unique pointers keep each view at a fixed address while the vector grows.
thread_local std::vector<std::unique_ptr<Lease>> held_leases;

}  // namespace

void HeldLeases::push(std::shared_ptr<LeaseState> lease) {
  innermost();
  held_leases.push_back(std::unique_ptr<Lease>(new Lease(Lease::Borrowed{}, std::move(lease))));
}

void HeldLeases::pop(const LeaseState& lease) {
  if (lease.acquiring_thread() != std::this_thread::get_id()) return;
  const auto found = std::find_if(held_leases.rbegin(), held_leases.rend(),
                                  [&](const auto& view) { return view->state_.get() == &lease; });
  if (found != held_leases.rend()) held_leases.erase(std::next(found).base());
}

const Lease* HeldLeases::innermost() {
  while (!held_leases.empty() && held_leases.back()->state_->released()) held_leases.pop_back();
  return held_leases.empty() ? nullptr : held_leases.back().get();
}

bool HeldLeases::holds(std::string_view name, std::string_view owner) {
  return std::any_of(held_leases.begin(), held_leases.end(), [&](const auto& view) {
    const LeaseState& state = *view->state_;
    return !state.released() && !state.lost() && state.identity().name == name &&
           state.identity().owner == owner;
  });
}

}  // namespace distlock::detail
