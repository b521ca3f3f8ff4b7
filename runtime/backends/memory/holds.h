// SPDX-License-Identifier: Apache-2.0
// The holds an in-process lock keeps: one owner's reentrant hold (the exclusive lock, a
// read-write lock's writer), or many acquisitions' holds at once, each with its own expiry and
// fence (a read-write lock's readers, a semaphore's permits). Called with the table's mutex
// held; an expired hold counts as gone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "backends/backend.h"
#include "util/steady_clock.h"

namespace distlock::detail::memory {

// What a release did to a lock.
enum class ReleaseEffect {
  not_held,     // the acquisition held nothing (expired, or released before)
  still_taken,  // other holds remain
  kept,         // the hold stays, held by nobody, until hold_at_least runs out: waiters that
                // sleep past that must wake by then
  freed,        // the hold is gone, and with it what kept a waiter out (the owner's last hold;
                // a permit; a reader, which keeps writers out while others remain)
};

class OwnerHold {
 public:
  // Whether anyone holds it: an owner, or nobody until a kept hold expires.
  bool taken(SteadyClock::time_point now) const { return now < expires_at_; }
  bool taken_by(std::string_view owner, SteadyClock::time_point now) const {
    return taken(now) && !owner_.empty() && owner_ == owner;
  }
  SteadyClock::time_point expires_at() const { return expires_at_; }

  // Takes a free hold for the request's owner.
  Grant take(const AcquireRequest& request, std::uint64_t fence, SteadyClock::time_point now);
  // The owner takes its hold once more: the fence stays, the expiry never shortens.
  Grant reenter(const AcquireRequest& request, SteadyClock::time_point now);
  // Extends the acquisition's hold to `ttl` from now; false when it holds none.
  bool renew(const HoldId& hold, Millis ttl, SteadyClock::time_point now);
  ReleaseEffect release(const HoldId& hold, Millis keep_for, SteadyClock::time_point now);

 private:
  bool held_by(const HoldId& hold, SteadyClock::time_point now) const;

  std::string owner_;  // empty: taken by nobody (a kept hold), or free
  std::unordered_set<std::string> acquisitions_;
  std::uint64_t fence_ = 0;
  SteadyClock::time_point expires_at_;
};

class SharedHolds {
 public:
  // Forgets the holds that expired: their holders died or stopped renewing.
  void drop_expired(SteadyClock::time_point now);
  // Live holds, kept ones included (after drop_expired).
  std::size_t count() const { return holds_.size(); }
  bool empty() const { return holds_.empty(); }
  // When the first of the holds expires (after drop_expired; time_point::max() when none).
  SteadyClock::time_point first_expiry() const;

  Grant take(const AcquireRequest& request, std::uint64_t fence, SteadyClock::time_point now);
  bool renew(const HoldId& hold, Millis ttl, SteadyClock::time_point now);
  ReleaseEffect release(const HoldId& hold, Millis keep_for, SteadyClock::time_point now);

 private:
  struct Hold {
    SteadyClock::time_point expires_at;
    // Released with hold_at_least: it counts until it expires, but no acquisition holds it.
    bool kept = false;
  };
  // The acquisition's live hold, or null.
  Hold* find(const HoldId& hold, SteadyClock::time_point now);

  std::unordered_map<std::string, Hold> holds_;  // by acquisition id
};

}  // namespace distlock::detail::memory
