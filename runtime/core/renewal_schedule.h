// The renewal queue's order: leases by next renewal time, in an indexed binary heap so a
// release removes its lease in O(log n) without scanning.
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

  // Adds the lease, or moves it to `due` if present.
  void schedule(LeaseKey key, TimePoint due);
  // Removes the lease; false if it was not scheduled.
  bool erase(LeaseKey key);
  // The earliest lease due at or before `now`, removed from the schedule.
  std::optional<LeaseKey> pop_due(TimePoint now);
  // When the earliest lease is due.
  std::optional<TimePoint> next_due() const;
  bool contains(LeaseKey key) const { return position_.contains(key); }
  std::size_t size() const { return heap_.size(); }
  bool empty() const { return heap_.empty(); }

 private:
  struct Entry {
    TimePoint due;
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
