// SPDX-License-Identifier: Apache-2.0
#include "core/held_leases.h"

#include <algorithm>
#include <iterator>
#include <list>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/owner_token.h"

namespace distlock::detail {
namespace {

struct Held {
  // A unique pointer keeps each view at a fixed address for current()'s callers.
  std::unique_ptr<Lease> view;
  // The view's state, which keys the indices.
  const LeaseState* state = nullptr;
  // Taken by the same per_key call as the entry before it: one group, led by its first.
  bool joins_previous = false;
};

using HeldList = std::list<Held>;

// A thread may hold many leases (a batch job locking each of its items): once it holds
// kIndexedFrom, indices find one lease, and one lock name's leases, without a scan, so the
// thousandth lease costs what the first does. Below that a scan is cheaper than keeping
// them (one lease taken and given back allocates nothing for them). The list keeps the
// leases' order, innermost last. The names' views point into the leases' identities, which
// live as long as the entries.
constexpr std::size_t kIndexedFrom = 32;

// Handed-over leases leave the list as released ones do; they are kept here until released, so
// that a thread that waits for a lock it handed over can be told why.
class HandedOver {
 public:
  void keep(std::shared_ptr<const LeaseState> state) {
    if (leases_.size() >= prune_at_) {
      std::erase_if(leases_, [](const auto& kept) { return kept->released(); });
      prune_at_ = std::max(kMinPruneAt, 2 * leases_.size());
    }
    leases_.push_back(std::move(state));
  }

  bool has_named(std::string_view name) const {
    return std::any_of(leases_.begin(), leases_.end(), [&](const auto& kept) {
      return !kept->released() && kept->identity().name == name;
    });
  }

 private:
  static constexpr std::size_t kMinPruneAt = 16;
  std::vector<std::shared_ptr<const LeaseState>> leases_;
  std::size_t prune_at_ = kMinPruneAt;
};

struct ThreadLeases {
  HeldList list;
  HandedOver handed_over;
  bool indexed = false;
  std::unordered_map<const LeaseState*, HeldList::iterator> by_state;
  std::unordered_multimap<std::string_view, const LeaseState*> by_name;

  void push_back(std::unique_ptr<Lease> view, const LeaseState* state) {
    list.push_back({std::move(view), state});
    if (indexed) {
      index(std::prev(list.end()));
    } else if (list.size() >= kIndexedFrom) {
      for (auto entry = list.begin(); entry != list.end(); ++entry) index(entry);
      indexed = true;
    }
  }

  HeldList::iterator find(const LeaseState* state) {
    if (indexed) {
      const auto found = by_state.find(state);
      return found == by_state.end() ? list.end() : found->second;
    }
    for (auto entry = list.end(); entry != list.begin();)
      if ((--entry)->state == state) return entry;
    return list.end();
  }

  // One of the leases on lock `name` for which `match` holds, or null.
  template <class Match>
  const LeaseState* find_named(std::string_view name, Match&& match) const {
    if (indexed) {
      const auto [first, last] = by_name.equal_range(name);
      const auto found =
          std::find_if(first, last, [&](const auto& named) { return match(*named.second); });
      return found == last ? nullptr : found->second;
    }
    const auto found = std::find_if(list.begin(), list.end(), [&](const Held& held) {
      return held.state->identity().name == name && match(*held.state);
    });
    return found == list.end() ? nullptr : found->state;
  }

  void erase(HeldList::iterator entry) {
    if (indexed) unindex(entry->state);
    list.erase(entry);
    if (list.empty() && indexed) {
      by_state.clear();
      by_name.clear();
      indexed = false;
    }
  }

 private:
  void index(HeldList::iterator entry) {
    by_state.emplace(entry->state, entry);
    by_name.emplace(entry->state->identity().name, entry->state);
  }

  void unindex(const LeaseState* state) {
    const auto [first, last] = by_name.equal_range(state->identity().name);
    for (auto named = first; named != last; ++named) {
      if (named->second == state) {
        by_name.erase(named);
        break;
      }
    }
    by_state.erase(state);
  }
};

thread_local ThreadLeases held_leases;

// The first entry of the group that ends at the back; the list is not empty.
HeldList::iterator innermost_group_start() {
  auto first = std::prev(held_leases.list.end());
  while (first != held_leases.list.begin() && first->joins_previous) --first;
  return first;
}

}  // namespace

void HeldLeases::push(std::shared_ptr<LeaseState> lease) {
  innermost();
  const LeaseState* state = lease.get();
  std::unique_ptr<Lease> view(new Lease(Lease::Borrowed{}, std::move(lease)));
  held_leases.push_back(std::move(view), state);
}

void HeldLeases::pop(const LeaseState& lease) {
  if (lease.acquiring_thread() != std::this_thread::get_id()) return;
  const auto found = held_leases.find(&lease);
  if (found != held_leases.list.end()) held_leases.erase(found);
}

const Lease* HeldLeases::innermost() {
  while (!held_leases.list.empty()) {
    const Held& back = held_leases.list.back();
    if (back.state->handed_over() && !back.state->released())
      held_leases.handed_over.keep(back.view->state_);
    else if (!back.state->released())
      break;
    held_leases.erase(std::prev(held_leases.list.end()));
  }
  return held_leases.list.empty() ? nullptr : innermost_group_start()->view.get();
}

void HeldLeases::group_last(std::size_t count) {
  auto entry = held_leases.list.end();
  for (std::size_t i = 1; i < count && entry != held_leases.list.begin(); ++i)
    (--entry)->joins_previous = true;
}

std::vector<const Lease*> HeldLeases::innermost_group() {
  std::vector<const Lease*> group;
  if (innermost() == nullptr) return group;
  for (auto entry = innermost_group_start(); entry != held_leases.list.end(); ++entry)
    group.push_back(entry->view.get());
  return group;
}

const LeaseState* HeldLeases::holding(std::string_view instance_id, std::string_view name,
                                      Mode mode) {
  return held_leases.find_named(name, [&](const LeaseState& state) {
    const LeaseIdentity& identity = state.identity();
    return !state.released() && !state.lost() && !state.handed_over() &&
           identity.kind.mode == mode && !identity.kind.semaphore() &&
           token_of_instance(identity.owner, instance_id);
  });
}

bool HeldLeases::handed_over(std::string_view name) {
  return held_leases.handed_over.has_named(name) ||
         held_leases.find_named(name, [](const LeaseState& state) {
           return state.handed_over() && !state.released();
         }) != nullptr;
}

}  // namespace distlock::detail
