// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/held_keys.h"

#include <algorithm>
#include <utility>

namespace distlock::detail::etcd {

std::string HeldKeys::hold_name(std::string_view prefix, std::string_view owner) {
  std::string name(prefix);
  name += '\n';  // in neither a prefix nor an owner token
  name += owner;
  return name;
}

std::optional<HeldKey> HeldKeys::find(std::string_view prefix, std::string_view owner) const {
  const std::lock_guard lock(mutex_);
  const auto found = holds_.find(hold_name(prefix, owner));
  if (found == holds_.end()) return std::nullopt;
  return found->second.key;
}

void HeldKeys::add(std::string_view prefix, std::string_view owner, HeldKey key,
                   std::string_view acquisition_id) {
  const std::lock_guard lock(mutex_);
  const std::string name = hold_name(prefix, owner);
  Hold& hold = holds_[name];
  // An earlier hold of this owner whose key went (expired) is replaced by the new one.
  for (const auto& earlier : hold.acquisitions) hold_of_.erase(earlier);
  hold.acquisitions.clear();
  hold_of_lease_.erase(hold.key.lease);
  hold_of_lease_[key.lease] = name;
  hold.key = std::move(key);
  hold.acquisitions.emplace(acquisition_id);
  hold_of_[std::string(acquisition_id)] = name;
}

bool HeldKeys::join(std::string_view prefix, std::string_view owner, const HeldKey& key,
                    std::string_view acquisition_id) {
  const std::lock_guard lock(mutex_);
  const std::string name = hold_name(prefix, owner);
  const auto found = holds_.find(name);
  if (found == holds_.end() || found->second.key.key != key.key) return false;
  found->second.acquisitions.emplace(acquisition_id);
  hold_of_[std::string(acquisition_id)] = name;
  return true;
}

void HeldKeys::forget(std::string_view prefix, std::string_view owner, const HeldKey& key) {
  const std::lock_guard lock(mutex_);
  const auto found = holds_.find(hold_name(prefix, owner));
  if (found == holds_.end() || found->second.key.key != key.key) return;
  for (const auto& acquisition : found->second.acquisitions) hold_of_.erase(acquisition);
  hold_of_lease_.erase(found->second.key.lease);
  holds_.erase(found);
}

HeldKeys::Removal HeldKeys::remove(std::string_view acquisition_id) {
  const std::lock_guard lock(mutex_);
  Removal removal;
  const auto named = hold_of_.find(std::string(acquisition_id));
  if (named == hold_of_.end()) return removal;
  removal.known = true;
  const auto hold = holds_.find(named->second);
  hold_of_.erase(named);
  if (hold == holds_.end()) return removal;
  hold->second.acquisitions.erase(std::string(acquisition_id));
  if (hold->second.acquisitions.empty()) {
    removal.ended = hold->second.key;
    hold_of_lease_.erase(hold->second.key.lease);
    holds_.erase(hold);
  }
  return removal;
}

std::optional<HeldKey> HeldKeys::of(std::string_view acquisition_id) const {
  const std::lock_guard lock(mutex_);
  const auto named = hold_of_.find(std::string(acquisition_id));
  if (named == hold_of_.end()) return std::nullopt;
  const auto hold = holds_.find(named->second);
  if (hold == holds_.end()) return std::nullopt;
  return hold->second.key;
}

void HeldKeys::confirmed(std::int64_t lease, SteadyClock::time_point sent_at) {
  const std::lock_guard lock(mutex_);
  const auto named = hold_of_lease_.find(lease);
  if (named == hold_of_lease_.end()) return;
  const auto hold = holds_.find(named->second);
  if (hold == holds_.end()) return;
  hold->second.key.alive_since = std::max(hold->second.key.alive_since, sent_at);
}

}  // namespace distlock::detail::etcd
