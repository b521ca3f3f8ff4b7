// SPDX-License-Identifier: Apache-2.0
#include "backends/memory/holds.h"

#include <algorithm>

namespace distlock::detail::memory {

Grant OwnerHold::take(const AcquireRequest& request, std::uint64_t fence,
                      SteadyClock::time_point now) {
  owner_ = request.hold.owner;
  acquisitions_ = {std::string(request.hold.acquisition_id)};
  fence_ = fence;
  expires_at_ = now + request.ttl;
  return {fence_, now};
}

Grant OwnerHold::reenter(const AcquireRequest& request, SteadyClock::time_point now) {
  acquisitions_.insert(std::string(request.hold.acquisition_id));
  expires_at_ = std::max(expires_at_, now + request.ttl);
  return {fence_, now};
}

bool OwnerHold::held_by(const HoldId& hold, SteadyClock::time_point now) const {
  return taken_by(hold.owner, now) && acquisitions_.contains(std::string(hold.acquisition_id));
}

bool OwnerHold::renew(const HoldId& hold, Millis ttl, SteadyClock::time_point now) {
  if (!held_by(hold, now)) return false;
  expires_at_ = std::max(expires_at_, now + ttl);
  return true;
}

ReleaseEffect OwnerHold::release(const HoldId& hold, Millis keep_for, SteadyClock::time_point now) {
  if (!held_by(hold, now)) return ReleaseEffect::not_held;
  acquisitions_.erase(std::string(hold.acquisition_id));
  if (!acquisitions_.empty()) return ReleaseEffect::still_taken;
  // Taken by nobody until then: no owner matches an empty one.
  owner_.clear();
  if (keep_for > Millis::zero()) {
    expires_at_ = now + keep_for;
    return ReleaseEffect::kept;
  }
  expires_at_ = {};
  return ReleaseEffect::freed;
}

void SharedHolds::drop_expired(SteadyClock::time_point now) {
  std::erase_if(holds_, [now](const auto& entry) { return entry.second.expires_at <= now; });
}

SteadyClock::time_point SharedHolds::first_expiry() const {
  auto first = SteadyClock::time_point::max();
  for (const auto& [id, hold] : holds_) first = std::min(first, hold.expires_at);
  return first;
}

SharedHolds::Hold* SharedHolds::find(const HoldId& hold, SteadyClock::time_point now) {
  const auto found = holds_.find(std::string(hold.acquisition_id));
  if (found == holds_.end() || found->second.kept || found->second.expires_at <= now)
    return nullptr;
  return &found->second;
}

Grant SharedHolds::take(const AcquireRequest& request, std::uint64_t fence,
                        SteadyClock::time_point now) {
  holds_[std::string(request.hold.acquisition_id)] = {now + request.ttl};
  return {fence, now};
}

bool SharedHolds::renew(const HoldId& hold, Millis ttl, SteadyClock::time_point now) {
  Hold* held = find(hold, now);
  if (held == nullptr) return false;
  held->expires_at = std::max(held->expires_at, now + ttl);
  return true;
}

ReleaseEffect SharedHolds::release(const HoldId& hold, Millis keep_for,
                                   SteadyClock::time_point now) {
  Hold* held = find(hold, now);
  if (held == nullptr) return ReleaseEffect::not_held;
  if (keep_for > Millis::zero()) {
    *held = {now + keep_for, true};
    return ReleaseEffect::kept;
  }
  holds_.erase(std::string(hold.acquisition_id));
  return ReleaseEffect::freed;
}

}  // namespace distlock::detail::memory
