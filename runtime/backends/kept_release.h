// SPDX-License-Identifier: Apache-2.0
// A release request that keeps its texts (a ReleaseRequest only points at its caller's): for a
// release read, sent again or made later after the Lease that made it is gone.
#pragma once

#include <algorithm>
#include <chrono>
#include <string>

#include "backends/backend.h"
#include "util/steady_clock.h"

namespace distlock::detail {

class KeptRelease {
 public:
  explicit KeptRelease(const ReleaseRequest& request)
      : name_(request.hold.name),
        owner_(request.hold.owner),
        acquisition_id_(request.hold.acquisition_id),
        kind_(request.hold.kind),
        keep_until_(SteadyClock::now() + request.keep_for),
        valid_until_(request.valid_until),
        sent_while_valid_(SteadyClock::now() < request.valid_until) {}

  // The request as of now: the lock is kept taken (hold_at_least) for what is left of the time.
  ReleaseRequest request() const {
    const auto keep_for = std::chrono::ceil<Millis>(keep_until_ - SteadyClock::now());
    return {
        {name_, owner_, acquisition_id_, kind_}, std::max(keep_for, Millis::zero()), valid_until_};
  }
  const std::string& lock() const { return name_; }
  // Whether the release first went out (or failed to) while the lease was still valid: then a
  // resend that finds the hold gone means that the first send removed it.
  bool sent_while_valid() const { return sent_while_valid_; }

 private:
  std::string name_;
  std::string owner_;
  std::string acquisition_id_;
  LockKind kind_;
  SteadyClock::time_point keep_until_;
  SteadyClock::time_point valid_until_;
  bool sent_while_valid_;
};

}  // namespace distlock::detail
