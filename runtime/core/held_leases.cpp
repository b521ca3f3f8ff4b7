#include "core/held_leases.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace distlock::detail {
namespace {

struct Held {
  // A unique pointer keeps each view at a fixed address while the vector grows.
  std::unique_ptr<Lease> view;
  // Taken by the same per_key call as the entry before it: one group, led by its first.
  bool joins_previous = false;
};

thread_local std::vector<Held> held_leases;

// The index of the first entry of the group that ends at the back; the list is not empty.
std::size_t innermost_group_start() {
  std::size_t first = held_leases.size() - 1;
  while (first > 0 && held_leases[first].joins_previous) --first;
  return first;
}

}  // namespace

void HeldLeases::push(std::shared_ptr<LeaseState> lease) {
  innermost();
  held_leases.push_back({std::unique_ptr<Lease>(new Lease(Lease::Borrowed{}, std::move(lease)))});
}

void HeldLeases::pop(const LeaseState& lease) {
  if (lease.acquiring_thread() != std::this_thread::get_id()) return;
  const auto found = std::find_if(held_leases.rbegin(), held_leases.rend(), [&](const Held& held) {
    return held.view->state_.get() == &lease;
  });
  if (found != held_leases.rend()) held_leases.erase(std::next(found).base());
}

const Lease* HeldLeases::innermost() {
  while (!held_leases.empty() && held_leases.back().view->state_->released())
    held_leases.pop_back();
  return held_leases.empty() ? nullptr : held_leases[innermost_group_start()].view.get();
}

void HeldLeases::group_last(std::size_t count) {
  const std::size_t size = held_leases.size();
  for (std::size_t i = size - std::min(count, size) + 1; i < size; ++i)
    held_leases[i].joins_previous = true;
}

std::vector<const Lease*> HeldLeases::innermost_group() {
  std::vector<const Lease*> group;
  if (innermost() == nullptr) return group;
  for (std::size_t i = innermost_group_start(); i < held_leases.size(); ++i)
    group.push_back(held_leases[i].view.get());
  return group;
}

bool HeldLeases::holds(std::string_view name, std::string_view owner, Mode mode) {
  return std::any_of(held_leases.begin(), held_leases.end(), [&](const Held& held) {
    const LeaseState& state = *held.view->state_;
    const LeaseIdentity& identity = state.identity();
    return !state.released() && !state.lost() && identity.name == name && identity.owner == owner &&
           identity.kind.mode == mode && !identity.kind.semaphore();
  });
}

}  // namespace distlock::detail
