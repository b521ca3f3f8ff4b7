// SPDX-License-Identifier: Apache-2.0
#include <stdexcept>

#include <distlock/election.h>

#include "core/lease_state.h"
#include "util/steady_clock.h"

namespace distlock {

StopToken::StopToken(std::shared_ptr<const detail::LeaseState> lease, StopWhen stop_when,
                     Millis margin) noexcept
    : lease_(std::move(lease)), stop_when_(stop_when), margin_(margin) {}

bool StopToken::stop_requested() const noexcept {
  if (!lease_) return false;
  const auto now = detail::SteadyClock::now();
  if (!lease_->valid(now)) return true;
  if (stop_when_ == StopWhen::invalid) return false;
  return lease_->doubted() || now >= lease_->valid_until() - margin_;
}

Leadership::Leadership(std::string election, StopWhen stop_when, Millis stop_margin, Lease lease)
    : election_(std::move(election)),
      stop_when_(stop_when),
      stop_margin_(stop_margin),
      lease_(std::move(lease)) {}

const std::string& Leadership::election() const {
  (void)lease();  // throws for a moved-from one
  return election_;
}

std::uint64_t Leadership::epoch() const { return lease_.fence(); }

std::chrono::steady_clock::time_point Leadership::valid_until() const {
  return lease_.valid_until();
}

bool Leadership::valid() const { return lease_.valid(); }

bool Leadership::stop_requested() const noexcept {
  return !lease_.state_ || stop_token().stop_requested();
}

StopToken Leadership::stop_token() const {
  if (!lease_.state_) return {};
  return {lease_.state_, stop_when_, stop_margin_};
}

const Lease& Leadership::lease() const {
  if (!lease_.state_) throw std::logic_error("distlock::Leadership: used after it was moved from");
  return lease_;
}

void Leadership::resign() { lease_.release(); }

}  // namespace distlock
