// SPDX-License-Identifier: Apache-2.0
// The renewal queue's order: an indexed heap of leases by next renewal time.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "core/renewal_schedule.h"

using namespace std::chrono_literals;
using distlock::detail::RenewalSchedule;
using TimePoint = RenewalSchedule::TimePoint;
using LeaseKey = RenewalSchedule::LeaseKey;

namespace {

// A fixed origin: the schedule never reads a clock, so neither does the test.
const TimePoint t0 = TimePoint{} + std::chrono::hours(1000);

TEST(RenewalSchedule, StartsEmpty) {
  RenewalSchedule s;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.size(), 0u);
  EXPECT_FALSE(s.next_due().has_value());
  EXPECT_FALSE(s.pop_due(t0 + 1000h).has_value());
  EXPECT_FALSE(s.contains(1));
  EXPECT_FALSE(s.erase(1));
}

// A lease whose window has opened goes with the lease that is due, in due order; one whose
// window has not opened waits, however close its due time.
TEST(RenewalSchedule, LeasesWhoseWindowHasOpenedComeWithTheOneDue) {
  RenewalSchedule s;
  s.schedule(1, t0 + 100ms, t0 + 90ms);
  s.schedule(2, t0 + 110ms, t0 + 95ms);
  s.schedule(3, t0 + 120ms, t0 + 115ms);
  s.schedule(4, t0 + 105ms);  // no window
  EXPECT_EQ(s.pop_due(t0 + 89ms), std::nullopt);
  EXPECT_EQ(s.pop_due(t0 + 100ms), std::optional<LeaseKey>(1));
  EXPECT_EQ(s.pop_due(t0 + 100ms), std::nullopt);  // 4 is due first and its window is shut
  EXPECT_EQ(s.pop_due(t0 + 105ms), std::optional<LeaseKey>(4));
  EXPECT_EQ(s.pop_due(t0 + 105ms), std::optional<LeaseKey>(2));
  EXPECT_EQ(s.pop_due(t0 + 105ms), std::nullopt);
  EXPECT_EQ(s.next_due(), std::optional<TimePoint>(t0 + 120ms));
  // Moving a lease moves its window too.
  s.schedule(3, t0 + 200ms, t0 + 190ms);
  EXPECT_EQ(s.pop_due(t0 + 150ms), std::nullopt);
  EXPECT_EQ(s.pop_due(t0 + 190ms), std::optional<LeaseKey>(3));
}

TEST(RenewalSchedule, PopsInDueOrder) {
  RenewalSchedule s;
  s.schedule(3, t0 + 30ms);
  s.schedule(1, t0 + 10ms);
  s.schedule(4, t0 + 40ms);
  s.schedule(2, t0 + 20ms);
  EXPECT_EQ(s.size(), 4u);
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.next_due(), t0 + 10ms);

  const TimePoint late = t0 + 1h;
  EXPECT_EQ(s.pop_due(late), std::optional<LeaseKey>(1));
  EXPECT_EQ(s.pop_due(late), std::optional<LeaseKey>(2));
  EXPECT_EQ(s.pop_due(late), std::optional<LeaseKey>(3));
  EXPECT_EQ(s.pop_due(late), std::optional<LeaseKey>(4));
  EXPECT_EQ(s.pop_due(late), std::nullopt);
  EXPECT_TRUE(s.empty());
}

TEST(RenewalSchedule, NothingIsPoppedBeforeItIsDue) {
  RenewalSchedule s;
  s.schedule(7, t0 + 100ms);
  s.schedule(8, t0 + 200ms);
  EXPECT_EQ(s.pop_due(t0), std::nullopt);
  EXPECT_EQ(s.pop_due(t0 + 99ms), std::nullopt);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_TRUE(s.contains(7));
  // Due "at or before now": exactly at the due time counts.
  EXPECT_EQ(s.pop_due(t0 + 100ms), std::optional<LeaseKey>(7));
  EXPECT_FALSE(s.contains(7));
  EXPECT_EQ(s.pop_due(t0 + 150ms), std::nullopt);
  EXPECT_EQ(s.next_due(), t0 + 200ms);
  EXPECT_EQ(s.pop_due(t0 + 200ms + 1ns), std::optional<LeaseKey>(8));
}

TEST(RenewalSchedule, ScheduleOfAnExistingKeyMovesIt) {
  RenewalSchedule s;
  s.schedule(1, t0 + 10ms);
  s.schedule(2, t0 + 20ms);
  s.schedule(3, t0 + 30ms);

  s.schedule(1, t0 + 50ms);  // later
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s.next_due(), t0 + 20ms);
  s.schedule(3, t0 + 5ms);  // earlier
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s.next_due(), t0 + 5ms);

  EXPECT_EQ(s.pop_due(t0 + 40ms), std::optional<LeaseKey>(3));
  EXPECT_EQ(s.pop_due(t0 + 40ms), std::optional<LeaseKey>(2));
  EXPECT_EQ(s.pop_due(t0 + 40ms), std::nullopt);  // 1 moved to +50ms
  EXPECT_EQ(s.pop_due(t0 + 50ms), std::optional<LeaseKey>(1));
  EXPECT_TRUE(s.empty());
}

TEST(RenewalSchedule, EraseInTheMiddleKeepsOrder) {
  RenewalSchedule s;
  for (LeaseKey k = 1; k <= 20; ++k) s.schedule(k, t0 + std::chrono::milliseconds(k * 10));
  EXPECT_TRUE(s.erase(7));
  EXPECT_TRUE(s.erase(1));
  EXPECT_TRUE(s.erase(20));
  EXPECT_TRUE(s.erase(13));
  EXPECT_FALSE(s.erase(13));
  EXPECT_FALSE(s.contains(13));
  EXPECT_TRUE(s.contains(14));
  EXPECT_EQ(s.size(), 16u);
  EXPECT_EQ(s.next_due(), t0 + 20ms);

  std::vector<LeaseKey> popped;
  while (auto key = s.pop_due(t0 + 1h)) popped.push_back(*key);
  const std::vector<LeaseKey> expected{2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18, 19};
  EXPECT_EQ(popped, expected);
}

TEST(RenewalSchedule, EqualDueTimesAllPop) {
  RenewalSchedule s;
  for (LeaseKey k = 0; k < 10; ++k) s.schedule(k, t0);
  std::set<LeaseKey> popped;
  while (auto key = s.pop_due(t0)) EXPECT_TRUE(popped.insert(*key).second) << *key;
  EXPECT_EQ(popped.size(), 10u);
  EXPECT_TRUE(s.empty());
}

TEST(RenewalSchedule, ErasedKeyCanBeScheduledAgain) {
  RenewalSchedule s;
  s.schedule(5, t0 + 10ms);
  EXPECT_TRUE(s.erase(5));
  EXPECT_TRUE(s.empty());
  s.schedule(5, t0 + 30ms);
  EXPECT_TRUE(s.contains(5));
  EXPECT_EQ(s.next_due(), t0 + 30ms);
  EXPECT_EQ(s.pop_due(t0 + 30ms), std::optional<LeaseKey>(5));
  EXPECT_FALSE(s.contains(5));
  EXPECT_FALSE(s.erase(5));  // popped means gone
}

// Random schedule / reschedule / erase / pop operations, each checked against a simple model:
// key -> due (std::map) and due -> key (std::multimap).
TEST(RenewalSchedule, RandomOperationsMatchAModel) {
  RenewalSchedule s;
  std::map<LeaseKey, TimePoint> due_of;
  std::multimap<TimePoint, LeaseKey> by_due;
  auto model_erase = [&](LeaseKey key) {
    auto it = due_of.find(key);
    if (it == due_of.end()) return false;
    auto range = by_due.equal_range(it->second);
    for (auto j = range.first; j != range.second; ++j) {
      if (j->second == key) {
        by_due.erase(j);
        break;
      }
    }
    due_of.erase(it);
    return true;
  };

  std::mt19937_64 rng(4242);
  std::uniform_int_distribution<LeaseKey> key_dist(0, 299);  // collisions are common
  std::uniform_int_distribution<int> due_dist(0, 999);       // ties are common
  std::uniform_int_distribution<int> op_dist(0, 99);

  for (int op = 0; op < 10000; ++op) {
    const int kind = op_dist(rng);
    if (kind < 45) {
      const LeaseKey key = key_dist(rng);
      const TimePoint due = t0 + std::chrono::milliseconds(due_dist(rng));
      s.schedule(key, due);
      model_erase(key);
      due_of[key] = due;
      by_due.emplace(due, key);
    } else if (kind < 75) {
      const LeaseKey key = key_dist(rng);
      ASSERT_EQ(s.erase(key), model_erase(key)) << "op " << op << " erase " << key;
    } else {
      const TimePoint now = t0 + std::chrono::milliseconds(due_dist(rng) - 100);
      const std::optional<LeaseKey> popped = s.pop_due(now);
      if (by_due.empty() || by_due.begin()->first > now) {
        ASSERT_EQ(popped, std::nullopt) << "op " << op;
      } else {
        ASSERT_TRUE(popped.has_value()) << "op " << op;
        // Any of the keys tied for the earliest due time is a correct answer.
        const TimePoint earliest = by_due.begin()->first;
        ASSERT_TRUE(due_of.contains(*popped)) << "op " << op << " popped unknown " << *popped;
        ASSERT_EQ(due_of[*popped], earliest) << "op " << op << " popped " << *popped;
        model_erase(*popped);
      }
    }

    ASSERT_EQ(s.size(), due_of.size()) << "op " << op;
    ASSERT_EQ(s.empty(), due_of.empty()) << "op " << op;
    if (by_due.empty()) {
      ASSERT_EQ(s.next_due(), std::nullopt) << "op " << op;
    } else {
      ASSERT_EQ(s.next_due(), std::optional<TimePoint>(by_due.begin()->first)) << "op " << op;
    }
    const LeaseKey probe = key_dist(rng);
    ASSERT_EQ(s.contains(probe), due_of.contains(probe)) << "op " << op << " probe " << probe;
  }

  // Drain: everything comes out once, in non-decreasing due order.
  TimePoint last = TimePoint::min();
  while (auto key = s.pop_due(TimePoint::max())) {
    ASSERT_TRUE(due_of.contains(*key)) << *key;
    const TimePoint due = due_of[*key];
    ASSERT_GE(due, last);
    ASSERT_EQ(due, by_due.begin()->first);
    last = due;
    model_erase(*key);
  }
  EXPECT_TRUE(due_of.empty());
  EXPECT_TRUE(s.empty());
}

}  // namespace
