// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/holds.h"

namespace distlock::detail::zookeeper {

std::string Holds::key(std::string_view path, std::string_view owner, Side side) {
  std::string key(path);
  key += '\n';
  key += owner;
  switch (side) {
    case Side::exclusive:
      key += "\nx";
      break;
    case Side::shared:
      key += "\nr";
      break;
    case Side::permit:
      key += "\np";
      break;
  }
  return key;
}

std::optional<HeldNode> Holds::find(std::string_view path, std::string_view owner,
                                    Side side) const {
  std::lock_guard lock(mutex_);
  const auto found = holds_.find(key(path, owner, side));
  if (found == holds_.end()) return std::nullopt;
  return found->second.node;
}

void Holds::add(std::string_view path, std::string_view owner, Side side, HeldNode node,
                std::string_view acquisition_id) {
  std::lock_guard lock(mutex_);
  const std::string hold_key = key(path, owner, side);
  const auto existing = holds_.find(hold_key);
  if (existing != holds_.end()) erase(existing);
  Hold& hold = holds_[hold_key];
  hold.node = std::move(node);
  hold.acquisitions.emplace(acquisition_id);
  keys_.emplace(std::string(acquisition_id), hold_key);
}

bool Holds::join(std::string_view path, std::string_view owner, Side side, std::string_view node,
                 std::string_view acquisition_id) {
  std::lock_guard lock(mutex_);
  const std::string hold_key = key(path, owner, side);
  const auto found = holds_.find(hold_key);
  if (found == holds_.end() || found->second.node.node != node) return false;
  found->second.acquisitions.emplace(acquisition_id);
  keys_.emplace(std::string(acquisition_id), hold_key);
  return true;
}

void Holds::forget(std::string_view path, std::string_view owner, Side side,
                   std::string_view node) {
  std::lock_guard lock(mutex_);
  const auto found = holds_.find(key(path, owner, side));
  if (found != holds_.end() && found->second.node.node == node) erase(found);
}

Holds::Removal Holds::remove(std::string_view acquisition_id) {
  std::lock_guard lock(mutex_);
  const auto id = keys_.find(std::string(acquisition_id));
  if (id == keys_.end()) return {};
  const auto hold = holds_.find(id->second);
  keys_.erase(id);
  Removal removal;
  removal.known = true;
  if (hold == holds_.end()) return removal;
  hold->second.acquisitions.erase(std::string(acquisition_id));
  if (hold->second.acquisitions.empty()) {
    removal.ended = std::move(hold->second.node);
    holds_.erase(hold);
  }
  return removal;
}

std::optional<HeldNode> Holds::of(std::string_view acquisition_id) const {
  std::lock_guard lock(mutex_);
  const auto id = keys_.find(std::string(acquisition_id));
  if (id == keys_.end()) return std::nullopt;
  const auto hold = holds_.find(id->second);
  if (hold == holds_.end()) return std::nullopt;
  return hold->second.node;
}

void Holds::drop_session(std::int64_t session) {
  std::lock_guard lock(mutex_);
  for (auto hold = holds_.begin(); hold != holds_.end();) {
    const auto next = std::next(hold);
    if (hold->second.node.session == session) erase(hold);
    hold = next;
  }
}

void Holds::erase(std::unordered_map<std::string, Hold>::iterator hold) {
  for (const auto& acquisition : hold->second.acquisitions) keys_.erase(acquisition);
  holds_.erase(hold);
}

}  // namespace distlock::detail::zookeeper
