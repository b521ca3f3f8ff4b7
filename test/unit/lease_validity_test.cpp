// SPDX-License-Identifier: Apache-2.0
// Lease validity without the network: valid_until / drift_allowance, and LeaseState driven by
// explicit time points (a fake clock). No client core, no server: a LeaseState needs neither.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <distlock/error.h>
#include <distlock/log.h>

#include "core/lease_state.h"
#include "core/validity.h"

using namespace std::chrono_literals;
using distlock::Millis;
using distlock::detail::LeaseIdentity;
using distlock::detail::LeaseState;
using TimePoint = std::chrono::steady_clock::time_point;
namespace detail = distlock::detail;

namespace {

// ---------------------------------------------------------------------------------------
// valid_until, drift_allowance

static_assert(detail::drift_allowance(Millis(0)) == 2ms);
static_assert(detail::drift_allowance(1s) == 12ms);
static_assert(detail::drift_allowance(30s) == 302ms);
static_assert(detail::valid_until(TimePoint{} + 100s, 30s) == TimePoint{} + 100s + 30s - 302ms);

TEST(Validity, DriftAllowanceIsOnePercentPlusTwoMilliseconds) {
  EXPECT_EQ(detail::drift_allowance(100ms), 3ms);
  EXPECT_EQ(detail::drift_allowance(1s), 12ms);
  EXPECT_EQ(detail::drift_allowance(10s), 102ms);
  EXPECT_EQ(detail::drift_allowance(30s), 302ms);
  EXPECT_EQ(detail::drift_allowance(1h), 36002ms);
}

TEST(Validity, ValidUntilIsSendTimePlusTtlLessDrift) {
  const TimePoint sent = TimePoint{} + 5000s;
  EXPECT_EQ(detail::valid_until(sent, 30s), sent + 29698ms);
  EXPECT_EQ(detail::valid_until(sent, 1s), sent + 988ms);
  EXPECT_EQ(detail::valid_until(sent, 10s), sent + 9898ms);
}

TEST(Validity, ValidUntilIsBeforeTheServerSideExpiry) {
  const TimePoint sent = TimePoint{} + 1s;
  for (const Millis ttl :
       {Millis(1), Millis(3), Millis(50), Millis(1000), Millis(30000), Millis(24 * 3600 * 1000)}) {
    EXPECT_LT(detail::valid_until(sent, ttl), sent + ttl) << ttl.count();
  }
}

TEST(Validity, LaterSendTimeGivesLaterValidity) {
  const TimePoint sent = TimePoint{} + 1s;
  EXPECT_LT(detail::valid_until(sent, 10s), detail::valid_until(sent + 1ms, 10s));
}

// ---------------------------------------------------------------------------------------
// LeaseState

class LeaseStateTest : public ::testing::Test {
 protected:
  static constexpr Millis kTtl = 10s;

  void SetUp() override {
    // mark_lost reports through the logger: capture instead of writing to stderr.
    distlock::set_logger([this](distlock::LogLevel level, std::string_view message) {
      std::lock_guard lock(log_mutex_);
      log_.emplace_back(level, std::string(message));
    });
  }
  void TearDown() override { distlock::set_logger({}); }

  std::shared_ptr<LeaseState> make(TimePoint sent_at, std::uint64_t serial = 1) {
    LeaseIdentity identity;
    identity.name = "order:42";
    identity.acquisition_id = "order-0123456789abcdef-00000001";
    identity.owner = "owner-token:1";
    identity.fence = 17;
    identity.ttl = kTtl;
    return std::make_shared<LeaseState>(std::make_shared<const std::string>("memory://validity"),
                                        identity, sent_at, serial);
  }

  const TimePoint sent_ = TimePoint{} + 1000s;
  const TimePoint until_ = detail::valid_until(sent_, kTtl);

  std::mutex log_mutex_;
  std::vector<std::pair<distlock::LogLevel, std::string>> log_;
};

TEST_F(LeaseStateTest, KeepsItsIdentity) {
  const auto state = make(sent_, 99);
  EXPECT_EQ(state->identity().name, "order:42");
  EXPECT_EQ(state->identity().acquisition_id, "order-0123456789abcdef-00000001");
  EXPECT_EQ(state->identity().owner, "owner-token:1");
  EXPECT_EQ(state->identity().fence, 17u);
  EXPECT_EQ(state->identity().ttl, kTtl);
  EXPECT_EQ(state->serial(), 99u);
  EXPECT_EQ(state->server(), "memory://validity");
  EXPECT_EQ(state->acquiring_thread(), std::this_thread::get_id());
  EXPECT_FALSE(state->released());
  EXPECT_FALSE(state->lost());
}

TEST_F(LeaseStateTest, ValidUntilComesFromTheSendTime) {
  const auto state = make(sent_);
  EXPECT_EQ(state->valid_until(), until_);
  EXPECT_EQ(state->valid_until(), sent_ + 9898ms);
}

TEST_F(LeaseStateTest, ValidBeforeValidUntilOnly) {
  const auto state = make(sent_);
  EXPECT_TRUE(state->valid(sent_));
  EXPECT_TRUE(state->valid(sent_ + 5s));
  EXPECT_TRUE(state->valid(until_ - 1ns));
  EXPECT_FALSE(state->valid(until_));
  EXPECT_FALSE(state->valid(until_ + 1ns));
  EXPECT_FALSE(state->valid(sent_ + kTtl));
  EXPECT_FALSE(state->valid(sent_ + 1h));
}

TEST_F(LeaseStateTest, InvalidReasonAfterRunningOutMentionsIt) {
  const auto state = make(sent_);
  EXPECT_FALSE(state->valid(until_));
  const std::string reason = state->invalid_reason(until_);
  EXPECT_FALSE(reason.empty());
  EXPECT_NE(reason.find("ran out"), std::string::npos) << reason;
}

TEST_F(LeaseStateTest, ExtendMovesValidityForward) {
  const auto state = make(sent_);
  state->extend(sent_ + 3s);
  EXPECT_EQ(state->valid_until(), detail::valid_until(sent_ + 3s, kTtl));
  EXPECT_TRUE(state->valid(until_));  // no longer ran out at the old limit
  EXPECT_TRUE(state->valid(until_ + 3s - 1ns));
  EXPECT_FALSE(state->valid(until_ + 3s));
}

TEST_F(LeaseStateTest, ExtendNeverMovesValidityBackwards) {
  const auto state = make(sent_);
  state->extend(sent_ + 5s);
  const TimePoint after_renewal = state->valid_until();
  EXPECT_EQ(after_renewal, detail::valid_until(sent_ + 5s, kTtl));

  // A late reply to an older renewal (sent earlier) must not shorten the lease.
  state->extend(sent_ + 2s);
  EXPECT_EQ(state->valid_until(), after_renewal);
  state->extend(sent_ - 1h);
  EXPECT_EQ(state->valid_until(), after_renewal);
  state->extend(sent_ + 5s);
  EXPECT_EQ(state->valid_until(), after_renewal);
  EXPECT_TRUE(state->valid(after_renewal - 1ns));
}

TEST_F(LeaseStateTest, ConcurrentExtendsKeepTheLatest) {
  const auto state = make(sent_);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  std::latch start(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        // Interleaved send times; thread t owns the values i * kThreads + t.
        for (int i = 0; i < kPerThread; ++i)
          state->extend(sent_ + std::chrono::milliseconds(i * kThreads + t));
      });
    }
  }
  const TimePoint latest =
      sent_ + std::chrono::milliseconds((kPerThread - 1) * kThreads + kThreads - 1);
  EXPECT_EQ(state->valid_until(), detail::valid_until(latest, kTtl));
}

TEST_F(LeaseStateTest, MarkLostMakesItInvalidAtOnce) {
  const auto state = make(sent_);
  ASSERT_TRUE(state->valid(sent_));
  state->mark_lost("renewal found the lock gone");
  EXPECT_TRUE(state->lost());
  EXPECT_FALSE(state->valid(sent_));
  EXPECT_FALSE(state->valid(sent_ + 1ms));
  const std::string reason = state->invalid_reason(sent_);
  EXPECT_NE(reason.find("renewal found the lock gone"), std::string::npos) << reason;
  // An extension after the loss does not bring it back.
  state->extend(sent_ + 1s);
  EXPECT_FALSE(state->valid(sent_ + 1s));
}

TEST_F(LeaseStateTest, LostCallbackRunsExactlyOnce) {
  const auto state = make(sent_);
  int calls = 0;
  std::string lock_seen;
  std::string what_seen;
  state->set_lost_callback([&](const distlock::LockLost& e) {
    ++calls;
    lock_seen = e.lock();
    what_seen = e.what();
  });
  EXPECT_EQ(calls, 0);  // not before the loss
  state->mark_lost("first reason");
  EXPECT_EQ(calls, 1);
  state->mark_lost("second reason");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(lock_seen, "order:42");
  EXPECT_NE(what_seen.find("order:42"), std::string::npos) << what_seen;
  EXPECT_NE(what_seen.find("first reason"), std::string::npos) << what_seen;
  EXPECT_EQ(what_seen.find("second reason"), std::string::npos) << what_seen;
}

TEST_F(LeaseStateTest, MarkLostIsReportedOnce) {
  const auto state = make(sent_);
  state->mark_lost("gone");
  state->mark_lost("gone again");
  std::lock_guard lock(log_mutex_);
  int mentions = 0;
  for (const auto& [level, message] : log_)
    if (message.find("order:42") != std::string::npos) ++mentions;
  EXPECT_EQ(mentions, 1);
}

TEST_F(LeaseStateTest, CallbackSetAfterTheLossRunsImmediately) {
  const auto state = make(sent_);
  state->mark_lost("expired");
  int calls = 0;
  std::string what_seen;
  state->set_lost_callback([&](const distlock::LockLost& e) {
    ++calls;
    what_seen = e.what();
  });
  EXPECT_EQ(calls, 1);
  EXPECT_NE(what_seen.find("expired"), std::string::npos) << what_seen;
  state->mark_lost("again");
  EXPECT_EQ(calls, 1);
}

TEST_F(LeaseStateTest, ReplacedCallbackBeforeTheLossOnlyTheLastRuns) {
  const auto state = make(sent_);
  int first = 0;
  int second = 0;
  state->set_lost_callback([&](const distlock::LockLost&) { ++first; });
  state->set_lost_callback([&](const distlock::LockLost&) { ++second; });
  state->mark_lost("gone");
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
}

TEST_F(LeaseStateTest, ThrowingCallbackDoesNotEscapeMarkLost) {
  const auto state = make(sent_);
  state->set_lost_callback([](const distlock::LockLost&) { throw std::runtime_error("boom"); });
  EXPECT_NO_THROW(state->mark_lost("gone"));
  EXPECT_TRUE(state->lost());
}

TEST_F(LeaseStateTest, ConcurrentMarkLostRunsTheCallbackOnce) {
  for (int round = 0; round < 50; ++round) {
    const auto state = make(sent_);
    std::atomic<int> calls{0};
    state->set_lost_callback([&](const distlock::LockLost&) { ++calls; });
    constexpr int kThreads = 8;
    std::latch start(kThreads);
    {
      std::vector<std::jthread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          start.arrive_and_wait();
          state->mark_lost("thread " + std::to_string(t));
        });
      }
    }
    ASSERT_EQ(calls.load(), 1) << "round " << round;
  }
}

TEST_F(LeaseStateTest, CallbackRacingWithTheLossRunsOnce) {
  // set_lost_callback and mark_lost on two threads at once: whichever comes first, the
  // callback runs exactly once.
  for (int round = 0; round < 200; ++round) {
    const auto state = make(sent_);
    std::atomic<int> calls{0};
    std::latch start(2);
    {
      std::jthread loser([&] {
        start.arrive_and_wait();
        state->mark_lost("gone");
      });
      std::jthread watcher([&] {
        start.arrive_and_wait();
        state->set_lost_callback([&](const distlock::LockLost&) { ++calls; });
      });
    }
    ASSERT_EQ(calls.load(), 1) << "round " << round;
  }
}

TEST_F(LeaseStateTest, BeginReleaseSucceedsOnce) {
  const auto state = make(sent_);
  EXPECT_FALSE(state->released());
  EXPECT_TRUE(state->begin_release());
  EXPECT_TRUE(state->released());
  EXPECT_FALSE(state->begin_release());
  EXPECT_FALSE(state->begin_release());
  EXPECT_TRUE(state->released());
}

TEST_F(LeaseStateTest, ReleasedLeaseIsNotValid) {
  const auto state = make(sent_);
  ASSERT_TRUE(state->begin_release());
  EXPECT_FALSE(state->valid(sent_));
  EXPECT_NE(state->invalid_reason(sent_).find("released"), std::string::npos);
}

TEST_F(LeaseStateTest, ConcurrentBeginReleaseHasOneWinner) {
  for (int round = 0; round < 50; ++round) {
    const auto state = make(sent_);
    std::atomic<int> winners{0};
    constexpr int kThreads = 8;
    std::latch start(kThreads);
    {
      std::vector<std::jthread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
          start.arrive_and_wait();
          if (state->begin_release()) ++winners;
        });
      }
    }
    ASSERT_EQ(winners.load(), 1) << "round " << round;
  }
}

}  // namespace
