// SPDX-License-Identifier: Apache-2.0
#include "core/renewal_schedule.h"

#include <utility>

namespace distlock::detail {

void RenewalSchedule::schedule(LeaseKey key, TimePoint due, TimePoint earliest) {
  if (const auto found = position_.find(key); found != position_.end()) {
    const std::size_t index = found->second;
    const TimePoint previous = heap_[index].due;
    heap_[index].due = due;
    heap_[index].earliest = earliest;
    if (due < previous)
      sift_up(index);
    else
      sift_down(index);
    return;
  }
  heap_.push_back({due, earliest, key});
  position_[key] = heap_.size() - 1;
  sift_up(heap_.size() - 1);
}

bool RenewalSchedule::erase(LeaseKey key) {
  const auto found = position_.find(key);
  if (found == position_.end()) return false;
  remove_at(found->second);
  return true;
}

std::optional<RenewalSchedule::LeaseKey> RenewalSchedule::pop_due(TimePoint now) {
  if (heap_.empty() || heap_.front().earliest > now) return std::nullopt;
  const LeaseKey key = heap_.front().key;
  remove_at(0);
  return key;
}

std::optional<RenewalSchedule::TimePoint> RenewalSchedule::next_due() const {
  if (heap_.empty()) return std::nullopt;
  return heap_.front().due;
}

bool RenewalSchedule::earlier(std::size_t a, std::size_t b) const {
  return heap_[a].due < heap_[b].due;
}

void RenewalSchedule::swap_entries(std::size_t a, std::size_t b) {
  std::swap(heap_[a], heap_[b]);
  position_[heap_[a].key] = a;
  position_[heap_[b].key] = b;
}

void RenewalSchedule::sift_up(std::size_t index) {
  while (index > 0) {
    const std::size_t parent = (index - 1) / 2;
    if (!earlier(index, parent)) return;
    swap_entries(index, parent);
    index = parent;
  }
}

void RenewalSchedule::sift_down(std::size_t index) {
  for (;;) {
    const std::size_t left = 2 * index + 1;
    const std::size_t right = left + 1;
    std::size_t smallest = index;
    if (left < heap_.size() && earlier(left, smallest)) smallest = left;
    if (right < heap_.size() && earlier(right, smallest)) smallest = right;
    if (smallest == index) return;
    swap_entries(index, smallest);
    index = smallest;
  }
}

void RenewalSchedule::remove_at(std::size_t index) {
  position_.erase(heap_[index].key);
  const std::size_t last = heap_.size() - 1;
  if (index != last) {
    heap_[index] = heap_[last];
    position_[heap_[index].key] = index;
  }
  heap_.pop_back();
  if (index < heap_.size()) {
    sift_up(index);
    sift_down(index);
  }
}

}  // namespace distlock::detail
