// SPDX-License-Identifier: Apache-2.0
// The renewal queue on its own: which lease it renews first, that a removed lease is never
// renewed again, that remove() waits for a renewal in flight, and how losses are reported.
// The backend here records what it is asked and answers as each test says; the queue's
// behaviour against real servers is the integration suites' work.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "backends/backend.h"
#include "core/lease_state.h"
#include "core/renewal_queue.h"
#include "core/stats.h"

namespace distlock::detail {
namespace {

using namespace std::chrono_literals;

class RecordingBackend final : public Backend {
 public:
  std::optional<Grant> acquire(const AcquireRequest&) override { return std::nullopt; }
  // Renewals only: nothing waits for a lock here.
  std::shared_ptr<PendingAcquisition> acquire_async(const AcquireRequest&, AsyncExecutor&,
                                                    AcquireCompletion) override {
    return nullptr;
  }
  ReleaseOutcome release(const ReleaseRequest&) override { return ReleaseOutcome::released; }
  void renew(std::span<RenewItem> items, SteadyClock::time_point) override {
    std::unique_lock lock(mutex_);
    auto& batch = batches_.emplace_back();
    for (auto& item : items) {
      renewed_.emplace_back(item.hold.name);
      batch.emplace_back(item.hold.name);
      const auto answer = answers_.find(std::string(item.hold.name));
      item.outcome = answer == answers_.end() ? RenewItem::Outcome::renewed : answer->second;
      if (item.outcome == RenewItem::Outcome::failed) item.error = "connection refused";
    }
    ++calls_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return !held_; });
  }
  const std::string& server() const override { return server_; }

  void answer(const std::string& name, RenewItem::Outcome outcome) {
    std::lock_guard lock(mutex_);
    answers_[name] = outcome;
  }
  // While held, a renew call records its items and then waits for let_go().
  void hold() {
    std::lock_guard lock(mutex_);
    held_ = true;
  }
  void let_go() {
    {
      std::lock_guard lock(mutex_);
      held_ = false;
    }
    changed_.notify_all();
  }
  // Waits until `name` has been renewed `times` times; false after 30 s.
  bool wait_renewed(const std::string& name, std::size_t times = 1) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 30s, [&] { return count_locked(name) >= times; });
  }
  std::size_t count(const std::string& name) {
    std::lock_guard lock(mutex_);
    return count_locked(name);
  }
  std::vector<std::string> renewed() {
    std::lock_guard lock(mutex_);
    return renewed_;
  }
  // The names of each renew call, call by call.
  std::vector<std::vector<std::string>> batches() {
    std::lock_guard lock(mutex_);
    return batches_;
  }

 private:
  std::size_t count_locked(const std::string& name) const {
    return static_cast<std::size_t>(std::count(renewed_.begin(), renewed_.end(), name));
  }

  const std::string server_ = "recording://";
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, RenewItem::Outcome> answers_;
  std::vector<std::string> renewed_;
  std::vector<std::vector<std::string>> batches_;
  std::size_t calls_ = 0;
  bool held_ = false;
};

class RenewalQueueTest : public ::testing::Test {
 protected:
  std::shared_ptr<LeaseState> lease(const std::string& name, Millis ttl) {
    LeaseIdentity identity;
    identity.name = name;
    identity.acquisition_id = name + "-id";
    identity.owner = "owner";
    identity.ttl = ttl;
    identity.type = name + "-type";
    return std::make_shared<LeaseState>(server_, std::move(identity), SteadyClock::now(),
                                        next_serial_++);
  }
  void add(const std::shared_ptr<LeaseState>& state) { queue_.add(state, SteadyClock::now()); }
  // How many events of this kind the hook received for this lock type.
  std::size_t events(EventKind kind, const std::string& type) {
    std::lock_guard lock(events_mutex_);
    return static_cast<std::size_t>(
        std::count(events_.begin(), events_.end(), std::make_pair(kind, type)));
  }

  const std::shared_ptr<const std::string> server_ =
      std::make_shared<const std::string>("recording://");
  std::uint64_t next_serial_ = 1;
  RecordingBackend backend_;
  StatsCounters stats_;
  std::mutex events_mutex_;
  std::vector<std::pair<EventKind, std::string>> events_;
  const EventSink sink_{[this](const Event& event) {
    std::lock_guard lock(events_mutex_);
    events_.emplace_back(event.kind, std::string(event.type));
  }};
  RenewalQueue queue_{backend_, stats_, sink_, 1.0 / 3.0};
};

// The first renewal of each lease is in the order they fall due, not the order they came.
TEST_F(RenewalQueueTest, RenewsInTheOrderLeasesFallDue) {
  const auto late = lease("late", 900ms);
  const auto middle = lease("middle", 600ms);
  const auto early = lease("early", 300ms);
  add(late);
  add(middle);
  add(early);
  ASSERT_TRUE(backend_.wait_renewed("late"));
  std::vector<std::string> first_renewals;
  for (const auto& name : backend_.renewed())
    if (std::find(first_renewals.begin(), first_renewals.end(), name) == first_renewals.end())
      first_renewals.push_back(name);
  EXPECT_EQ(first_renewals, (std::vector<std::string>{"early", "middle", "late"}));
  queue_.remove(*early);
  queue_.remove(*middle);
  queue_.remove(*late);
}

// A lease due a little later than another goes in the same batch (one round trip) when its
// window before the due time has opened; a lease due much later does not.
TEST_F(RenewalQueueTest, LeasesDueCloseTogetherShareABatch) {
  // Renewal intervals 1000 ms, 1050 ms and 2000 ms: the second's window opens at 945 ms, before
  // the first is due; the third's opens at 1800 ms.
  const auto first = lease("first", 3000ms);
  const auto close = lease("close", 3150ms);
  const auto far = lease("far", 6000ms);
  add(first);
  add(close);
  add(far);
  ASSERT_TRUE(backend_.wait_renewed("first"));
  const auto batches = backend_.batches();
  ASSERT_FALSE(batches.empty());
  EXPECT_EQ(batches.front(), (std::vector<std::string>{"first", "close"}));
  queue_.remove(*first);
  queue_.remove(*close);
  queue_.remove(*far);
}

TEST_F(RenewalQueueTest, ARemovedLeaseIsNeverRenewed) {
  const auto removed = lease("removed", 30ms);
  const auto witness = lease("witness", 60ms);
  add(removed);
  add(witness);
  queue_.remove(*removed);
  // The witness falls due after the removed lease would have: once it is renewed, the
  // removed one had its chance.
  ASSERT_TRUE(backend_.wait_renewed("witness", 2));
  EXPECT_EQ(backend_.count("removed"), 0u);
  queue_.remove(*witness);
}

TEST_F(RenewalQueueTest, KeepsRenewingUntilRemoved) {
  const auto held = lease("held", 30ms);
  add(held);
  ASSERT_TRUE(backend_.wait_renewed("held", 3));
  EXPECT_GE(stats_.renewals.load(), 2u);
  EXPECT_GT(held->valid_until(), SteadyClock::now());
  queue_.remove(*held);
  EXPECT_EQ(events(EventKind::renewed, "held-type"), stats_.renewals.load());
  const auto renewals = backend_.count("held");
  const auto witness = lease("witness", 30ms);
  add(witness);
  ASSERT_TRUE(backend_.wait_renewed("witness", 3));
  EXPECT_EQ(backend_.count("held"), renewals);
  queue_.remove(*witness);
}

TEST_F(RenewalQueueTest, RemoveWaitsForTheRenewalInFlight) {
  const auto held = lease("in-flight", 30ms);
  backend_.hold();
  add(held);
  ASSERT_TRUE(backend_.wait_renewed("in-flight"));
  std::atomic<bool> removed{false};
  std::thread remover([&] {
    queue_.remove(*held);
    removed = true;
  });
  // Time for a remove() that does not wait to return and show it.
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(removed.load()) << "remove() returned while the lease's renewal was in flight";
  backend_.let_go();
  remover.join();
  EXPECT_TRUE(removed.load());
}

TEST_F(RenewalQueueTest, ALeaseFoundGoneIsReportedOnceAndNotRenewedAgain) {
  const auto gone = lease("gone", 30ms);
  const auto witness = lease("witness", 30ms);
  backend_.answer("gone", RenewItem::Outcome::lost);
  std::mutex mutex;
  std::vector<std::string> reports;
  gone->set_lost_callback([&](const LockLost& error) {
    std::lock_guard lock(mutex);
    reports.emplace_back(error.what());
  });
  add(gone);
  add(witness);
  ASSERT_TRUE(backend_.wait_renewed("witness", 4));
  EXPECT_EQ(backend_.count("gone"), 1u);
  EXPECT_TRUE(gone->lost());
  EXPECT_EQ(stats_.lost.load(), 1u);
  EXPECT_EQ(events(EventKind::lost, "gone-type"), 1u);
  EXPECT_EQ(events(EventKind::renewed, "gone-type"), 0u);
  {
    std::lock_guard lock(mutex);
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].find("a renewal found the lock gone"), std::string::npos) << reports[0];
    EXPECT_NE(reports[0].find("recording://"), std::string::npos) << reports[0];
  }
  queue_.remove(*gone);
  queue_.remove(*witness);
}

TEST_F(RenewalQueueTest, FailedRenewalsAreRetriedUntilTheLeaseRunsOut) {
  const auto failing = lease("failing", 300ms);
  backend_.answer("failing", RenewItem::Outcome::failed);
  std::mutex mutex;
  std::condition_variable reported;
  std::string report;
  failing->set_lost_callback([&](const LockLost& error) {
    std::lock_guard lock(mutex);
    report = error.what();
    reported.notify_all();
  });
  add(failing);
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(reported.wait_for(lock, 30s, [&] { return !report.empty(); }));
  }
  EXPECT_NE(report.find("renewals failed until the lease ran out: connection refused"),
            std::string::npos)
      << report;
  // Due at 100 ms, valid until about 295 ms, retried in between.
  EXPECT_GE(backend_.count("failing"), 2u);
  EXPECT_GE(stats_.renewal_failures.load(), 2u);
  EXPECT_GE(SteadyClock::now(), failing->valid_until());
  queue_.remove(*failing);
  EXPECT_EQ(events(EventKind::renewal_failed, "failing-type"), stats_.renewal_failures.load());
  EXPECT_EQ(events(EventKind::lost, "failing-type"), 1u);
}

// A lost callback may release its lease: remove() on the renewal thread itself must not
// wait for the batch that thread is reporting.
TEST_F(RenewalQueueTest, ALostCallbackMayRemoveItsLease) {
  const auto gone = lease("gone", 30ms);
  backend_.answer("gone", RenewItem::Outcome::lost);
  std::mutex mutex;
  std::condition_variable removed;
  bool done = false;
  gone->set_lost_callback([&](const LockLost&) {
    queue_.remove(*gone);
    std::lock_guard lock(mutex);
    done = true;
    removed.notify_all();
  });
  add(gone);
  std::unique_lock lock(mutex);
  EXPECT_TRUE(removed.wait_for(lock, 30s, [&] { return done; }))
      << "remove() from the lost callback never returned";
}

}  // namespace
}  // namespace distlock::detail
