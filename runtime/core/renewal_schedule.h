// SPDX-License-Identifier: Apache-2.0
// The renewal queue's order: leases by next renewal time, in an indexed binary heap so a
// release removes its lease in O(log n) without scanning. A lease may carry a window before
// its due time in which renewing it is already fine: when one lease comes due, those whose
// window has opened go with it, so many leases share one batch (one round trip) instead of
// each waking the thread on its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>
#include "util/steady_clock.h"

namespace distlock::detail {

class RenewalSchedule {
 public:
  using TimePoint = SteadyClock::time_point;
  using LeaseKey = std::uint64_t;

  // Adds the lease, or moves it to `due` if present; it may be renewed from `earliest` on.
  void schedule(LeaseKey key, TimePoint due, TimePoint earliest);
  // The same with no window before `due`.
  void schedule(LeaseKey key, TimePoint due) { schedule(key, due, due); }
  // Removes the lease; false if it was not scheduled.
  bool erase(LeaseKey key);
  // The lease due first, removed from the schedule, when its window has opened by `now`.
  std::optional<LeaseKey> pop_due(TimePoint now);
  // When the earliest lease is due.
  std::optional<TimePoint> next_due() const;
  bool contains(LeaseKey key) const { return position_.contains(key); }
  std::size_t size() const { return heap_.size(); }
  bool empty() const { return heap_.empty(); }

 private:
  struct Entry {
    TimePoint due;
    TimePoint earliest;
    LeaseKey key;
  };
  bool earlier(std::size_t a, std::size_t b) const;
  void swap_entries(std::size_t a, std::size_t b);
  void sift_up(std::size_t index);
  void sift_down(std::size_t index);
  void remove_at(std::size_t index);

  std::vector<Entry> heap_;
  std::unordered_map<LeaseKey, std::size_t> position_;
};

}  // namespace distlock::detail
