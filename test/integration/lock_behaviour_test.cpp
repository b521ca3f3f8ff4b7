// SPDX-License-Identifier: Apache-2.0
// The lock behaviours every backend must show, on each backend and topology of the conformance
// list (test/conformance/topology.h), each on servers the suites of its process share. ZooKeeper
// clients ask for a 4 s session, so that the watchdog tests' 2 s ttl is shorter than the session
// timeout.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "counter_file.h"
#include "holder_thread.h"
#include "integration_helpers.h"
#include "subprocess.h"
#include "topology.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// True if a thread other than the caller could take the lock right now (it releases it at
// once). Another thread is another owner, even on the same client.
bool free_for_another_thread(Client& client, const LockSpec& spec, const std::string& key) {
  bool taken = false;
  std::thread other([&] { taken = client.try_acquire(spec, key).has_value(); });
  other.join();
  return taken;
}

class LockBehaviour : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    try {
      url_ = url_of(GetParam());
    } catch (const std::exception& e) {
      FAIL() << "cannot start the servers of " << ::testing::PrintToString(GetParam()) << ": "
             << e.what();
    }
    key_ = unique_name(::testing::UnitTest::GetInstance()->current_test_info()->name());
    for (auto& c : key_) {
      if (c == '/') c = '_';
    }
  }

  std::shared_ptr<Client> connect(Options options = {}) {
    return Client::connect(url_, std::move(options));
  }

  std::string url_;
  static constexpr std::string_view type_ = "itest";
  std::string key_;
};

// What an event hook hears of one client's acquisitions, in order.
class EventRecorder {
 public:
  EventHook hook() {
    return [this](const distlock::Event& event) {
      std::lock_guard lock(mutex_);
      events_.push_back({event.kind, std::string(event.type), event.waited, event.held});
    };
  }
  struct Seen {
    EventKind kind;
    std::string type;
    Millis waited;
    Millis held;
  };
  std::vector<Seen> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Seen> events_;
};

TEST_P(LockBehaviour, TheEventHookHearsEachStepWithTheLockType) {
  EventRecorder recorder;
  Options options;
  options.on_event = recorder.hook();
  auto client = connect(options);
  auto other = connect();
  const auto spec_with = [&](auto... options) { return spec(type_, 30s, options...); };

  std::optional<Lease> taken = other->acquire(spec_with(), key_);
  EXPECT_FALSE(client->try_acquire(spec_with(), key_));  // timeout, not contended: no wait
  {
    Holder waiter(*client, spec_with(wait(20s)), key_);
    ASSERT_TRUE(eventually([&] { return client->stats().waiting == 1; }));
    taken->release();
    ASSERT_TRUE(waiter.granted_within(5s));
  }  // released
  taken = other->acquire(spec_with(), key_);
  EXPECT_THROW(client->acquire(spec_with(wait(200ms)), key_), LockTimeout);

  const auto events = recorder.events();
  std::vector<EventKind> kinds;
  for (const auto& event : events) {
    kinds.push_back(event.kind);
    EXPECT_EQ(event.type, type_);
  }
  const std::vector<EventKind> expected = {EventKind::timeout,   EventKind::contended,
                                           EventKind::acquired,  EventKind::released,
                                           EventKind::contended, EventKind::timeout};
  ASSERT_EQ(kinds, expected);
  EXPECT_GE(events[5].waited, 200ms) << "the wait that timed out";
  // A try makes one round trip, bounded by the command timeout, never a wait: a bound the
  // machine's load cannot break, where 200 ms could.
  EXPECT_LT(events[0].waited, Options{}.command_timeout) << "a try does not wait";
  EXPECT_EQ(client->stats().acquired, 1u);
}

TEST_P(LockBehaviour, ReentrantAcquisitionSharesTheFenceAndNeedsOneReleaseEach) {
  auto client = connect();
  const auto lock_spec = spec(type_, 30s, wait(20s));

  Lease outer = client->acquire(lock_spec, key_);
  Lease inner = client->acquire(lock_spec, key_);  // same thread: reenters, does not wait
  EXPECT_TRUE(outer.valid());
  EXPECT_TRUE(inner.valid());
  EXPECT_EQ(outer.fence(), inner.fence());
  EXPECT_EQ(outer.name(), inner.name());
  EXPECT_NE(outer.id(), inner.id()) << "acquisition ids are unique per acquisition";
  EXPECT_FALSE(free_for_another_thread(*client, lock_spec, key_));

  // Another thread of this process waits for the lock.
  std::promise<std::uint64_t> waiter_fence;
  auto waiter_got_it = waiter_fence.get_future();
  std::thread waiter([&] {
    try {
      Lease lease = client->acquire(lock_spec, key_);
      waiter_fence.set_value(lease.fence());
    } catch (...) {
      waiter_fence.set_exception(std::current_exception());
    }
  });
  const bool waiting = eventually([&] { return client->stats().waiting == 1; });
  EXPECT_TRUE(waiting) << "the other thread never started waiting";

  outer.release();
  EXPECT_FALSE(outer.valid());
  EXPECT_TRUE(inner.valid()) << "one release of two must leave the lock held";
  EXPECT_FALSE(free_for_another_thread(*client, lock_spec, key_));
  EXPECT_EQ(waiter_got_it.wait_for(0s), std::future_status::timeout)
      << "the waiter got the lock after the first of two releases";

  inner.release();
  EXPECT_FALSE(inner.valid());
  ASSERT_EQ(waiter_got_it.wait_for(20s), std::future_status::ready)
      << "the waiter did not get the lock after the second release";
  EXPECT_GT(waiter_got_it.get(), outer.fence());
  waiter.join();
  EXPECT_TRUE(free_for_another_thread(*client, lock_spec, key_));
}

// Reentry follows the holder: a thread that moved its Lease to another thread no longer
// re-enters the lock (on Redis the script re-entered with the same fence, memory:// and
// ZooKeeper by the thread's owner token, while the other thread still worked under it). It
// waits like any other contender, and gets the lock with a new fence once the holder is done.
TEST_P(LockBehaviour, AThreadThatMovedItsLeaseAwayDoesNotReenterIt) {
  auto client = connect();
  Lease taken = client->acquire(spec(type_, 30s), key_);
  const std::uint64_t first_fence = taken.fence();
  ASSERT_NE(current(), nullptr);

  std::promise<void> release_asked;
  std::thread worker([lease = std::move(taken), asked = release_asked.get_future()]() mutable {
    asked.wait();
    lease.release();
  });
  EXPECT_FALSE(client->try_acquire(spec(type_, 30s, try_only), key_).has_value())
      << "re-entered a lease another thread holds";
  EXPECT_EQ(current(), nullptr) << "current() shows a lease this thread handed over";
  try {
    client->acquire(spec(type_, 30s, wait(100ms)), key_);
    ADD_FAILURE() << "re-entered a lease another thread holds";
  } catch (const LockTimeout& error) {
    EXPECT_NE(std::string(error.what()).find("moved the Lease away"), std::string::npos)
        << error.what();
  }

  std::thread releaser([&] {
    EXPECT_TRUE(eventually([&] { return client->stats().waiting == 1; }));
    release_asked.set_value();
  });
  Lease next = client->acquire(spec(type_, 30s, wait(20s)), key_);
  releaser.join();
  worker.join();
  EXPECT_GT(next.fence(), first_fence) << "granted the moved lease's hold, not a new one";
  EXPECT_EQ(current()->id(), next.id());
  // Moved to a local of this thread (on its stack), it is still this thread's.
  std::optional<Lease> here;
  here.emplace(std::move(next));
  auto again = client->try_acquire(spec(type_, 30s, try_only), key_);
  // Held by `here`, the lock is granted to a reentry only.
  ASSERT_TRUE(again.has_value()) << "a lease moved to a local of its thread was not re-entered";
  again->release();
  // Moved into a container, it may go anywhere: handed over.
  std::vector<Lease> kept;
  kept.push_back(std::move(*here));
  EXPECT_FALSE(client->try_acquire(spec(type_, 30s, try_only), key_).has_value());
  EXPECT_EQ(current(), nullptr);
}

TEST_P(LockBehaviour, FenceStrictlyIncreasesAcrossSuccessiveHolders) {
  auto first = connect();
  auto second = connect();
  const auto lock_spec = spec(type_, 30s, wait(10s));
  std::uint64_t previous = 0;
  for (int i = 0; i < 6; ++i) {
    Client& client = (i % 2 == 0) ? *first : *second;
    Lease lease = client.acquire(lock_spec, key_);
    EXPECT_GT(lease.fence(), previous) << "holder " << i;
    previous = lease.fence();
    lease.release();
  }
  // A holder on another thread of the same client.
  std::uint64_t from_thread = 0;
  std::thread other([&] { from_thread = first->acquire(lock_spec, key_).fence(); });
  other.join();
  EXPECT_GT(from_thread, previous);
}

TEST_P(LockBehaviour, MutualExclusionLosesNoUpdate) {
  TempDirectory directory;
  const std::string counter = (directory.path() / "counter").string();
  write_counter_file(counter, {0, 0});

  if (GetParam() != Backend::memory) {
    // 4 processes x 2 threads, each its own client instance per process.
    constexpr int kProcesses = 4;
    constexpr int kThreads = 2;
    constexpr int kIterations = 40;
    std::vector<std::unique_ptr<Subprocess>> workers;
    for (int p = 0; p < kProcesses; ++p) {
      workers.push_back(std::make_unique<Subprocess>(
          DISTLOCK_COUNTER_WORKER,
          std::vector<std::string>{url_, counter, std::to_string(kIterations),
                                   std::to_string(kThreads)}));
    }
    for (auto& worker : workers) {
      const std::string output = worker->read_all(100s);
      const ExitStatus status = worker->wait(10s);
      EXPECT_TRUE(status.success()) << "worker " << worker->pid() << ": " << status.describe()
                                    << " (2: fence out of order), output: " << output;
      EXPECT_EQ(output, "done " + std::to_string(kThreads * kIterations) + "\n");
    }
    EXPECT_EQ(read_counter_file(counter).count,
              static_cast<std::uint64_t>(kProcesses * kThreads * kIterations));
  } else {
    // 8 threads over two clients of one memory:// name.
    constexpr int kThreads = 8;
    constexpr int kIterations = 100;
    auto first = connect();
    auto second = connect();
    const auto lock_spec = spec(type_, 30s, wait(60s));
    std::atomic<int> fence_violations{0};
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      Client& client = (t % 2 == 0) ? *first : *second;
      threads.emplace_back([&, &client = client] {
        try {
          for (int i = 0; i < kIterations; ++i) {
            Lease lease = client.acquire(lock_spec, key_);
            if (!increment_counter_file(counter, lease.fence(), 500us)) ++fence_violations;
            lease.release();
          }
        } catch (const std::exception& e) {
          ADD_FAILURE() << e.what();
          ++errors;
        }
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(errors.load(), 0);
    EXPECT_EQ(fence_violations.load(), 0);
    EXPECT_EQ(read_counter_file(counter).count, static_cast<std::uint64_t>(kThreads * kIterations));
    EXPECT_EQ(first->stats().acquired + second->stats().acquired,
              static_cast<std::uint64_t>(kThreads * kIterations));
  }
}

// A 2 s ttl is renewed every 667 ms and stays valid for 1.3 s more: a renewal thread that a
// loaded machine (two busy cores, ThreadSanitizer) delays by a second still keeps it.
TEST_P(LockBehaviour, WatchdogKeepsALockHeldPastItsTtl) {
  auto holder = connect();
  auto other = connect();
  constexpr auto kTtl = 2s;
  const auto lock_spec = spec(type_, kTtl);
  const auto before_acquire = Clock::now();
  Lease lease = holder->acquire(lock_spec, key_);
  const auto hold_until = before_acquire + 5s;

  int checks = 0;
  while (Clock::now() < hold_until) {
    ASSERT_TRUE(lease.valid()) << "after "
                               << std::chrono::duration_cast<std::chrono::milliseconds>(
                                      Clock::now() - before_acquire)
                                      .count()
                               << " ms";
    EXPECT_FALSE(other->try_acquire(lock_spec, key_).has_value());
    // Each of these waits 250 ms, which also paces the loop.
    EXPECT_THROW(other->acquire(spec(type_, kTtl, wait(250ms)), key_), LockTimeout);
    ++checks;
  }
  // Two and a half times the ttl later, still held.
  EXPECT_TRUE(lease.valid());
  EXPECT_NO_THROW(lease.ensure_held());
  EXPECT_FALSE(other->try_acquire(lock_spec, key_).has_value());
  EXPECT_GT(lease.valid_until(), before_acquire + 2 * kTtl);
  // Each check waits 250 ms, so 5 s of them are a score, or at least five on a slow machine;
  // a loop that ended early would leave the renewals unchecked.
  EXPECT_GE(checks, 5);
  // Valid at 5 s with a 2 s ttl cannot happen without at least two renewals.
  EXPECT_GE(holder->stats().renewals, 2u);
  EXPECT_EQ(holder->stats().lost, 0u);
  EXPECT_GE(other->stats().timeouts, static_cast<std::uint64_t>(2 * checks));

  lease.release();
  EXPECT_TRUE(other->try_acquire(lock_spec, key_).has_value());
}

TEST_P(LockBehaviour, WaiterIsWokenByTheReleaseNotByATimeout) {
  auto holder = connect();
  auto waiter_client = connect();
  Lease held = holder->acquire(spec(type_, 30s), key_);

  std::promise<std::uint64_t> waiter_fence;
  auto waiter_got_it = waiter_fence.get_future();
  std::thread waiter([&] {
    try {
      waiter_fence.set_value(waiter_client->acquire(spec(type_, 30s, wait(20s)), key_).fence());
    } catch (...) {
      waiter_fence.set_exception(std::current_exception());
    }
  });
  const bool waiting = eventually([&] { return waiter_client->stats().waiting == 1; });
  EXPECT_TRUE(waiting) << "the waiter never started waiting";

  held.release();
  ASSERT_EQ(waiter_got_it.wait_for(20s), std::future_status::ready);
  std::uint64_t fence = 0;
  ASSERT_NO_THROW(fence = waiter_got_it.get());
  waiter.join();
  EXPECT_GT(fence, held.fence());

  const ClientStats stats = waiter_client->stats();
  EXPECT_GE(stats.woken_by_release, 1u);
  EXPECT_EQ(stats.woken_by_timeout, 0u);
  EXPECT_GE(stats.contended, 1u);
  EXPECT_EQ(stats.waiting, 0u);
}

TEST_P(LockBehaviour, LockTimeoutNamesTheLockAndTheServer) {
  auto holder = connect();
  auto other = connect();
  Lease held = holder->acquire(spec(type_, 30s), key_);

  const auto start = Clock::now();
  try {
    other->acquire(spec(type_, 30s, wait(300ms)), key_);
    FAIL() << "acquired a lock held elsewhere";
  } catch (const LockTimeout& e) {
    const auto waited = Clock::now() - start;
    EXPECT_GE(waited, 295ms) << "gave up before the wait ran out";
    EXPECT_LT(waited, 10s);
    EXPECT_EQ(e.lock(), held.name());
    EXPECT_EQ(e.server(), other->server());
    const std::string what = e.what();
    EXPECT_NE(what.find(held.name()), std::string::npos) << what;
    EXPECT_NE(what.find(other->server()), std::string::npos) << what;
  }
  EXPECT_GE(other->stats().timeouts, 1u);
  EXPECT_TRUE(held.valid());
}

TEST_P(LockBehaviour, TryOnlyAndTryAcquireDoNotWait) {
  auto holder = connect();
  auto other = connect();
  Lease held = holder->acquire(spec(type_, 30s), key_);

  const auto start = Clock::now();
  EXPECT_THROW(other->acquire(spec(type_, 30s, try_only), key_), LockTimeout);
  EXPECT_FALSE(other->try_acquire(spec(type_, 30s, try_only), key_).has_value());
  // try_acquire never waits, whatever the spec says.
  EXPECT_FALSE(other->try_acquire(spec(type_, 30s, wait(20s)), key_).has_value());
  EXPECT_FALSE(other->try_acquire(spec(type_, 30s), key_).has_value());
  // Any waiting at all would have lasted until the holder's 30 s ttl or the 20 s wait.
  EXPECT_LT(Clock::now() - start, 10s);
  EXPECT_EQ(other->stats().timeouts, 4u);

  held.release();
  auto lease = other->try_acquire(spec(type_, 30s, try_only), key_);
  ASSERT_TRUE(lease.has_value());
  EXPECT_TRUE(lease->valid());
}

TEST_P(LockBehaviour, CurrentIsTheInnermostLeaseOfThisThread) {
  auto client = connect();
  EXPECT_EQ(current(), nullptr);
  bool ran = false;
  bool undone = false;
  EXPECT_THROW(checked([&] { ran = true; }, [&] { undone = true; }), ConfigError);
  EXPECT_FALSE(ran);
  EXPECT_FALSE(undone);

  Lease outer = client->acquire(spec(type_, 30s), key_ + "-outer");
  ASSERT_NE(current(), nullptr);
  EXPECT_EQ(current()->id(), outer.id());
  {
    Lease inner = client->acquire(spec(type_, 30s), key_ + "-inner");
    ASSERT_NE(current(), nullptr);
    EXPECT_EQ(current()->id(), inner.id());
    EXPECT_EQ(current()->name(), inner.name());

    // checked() on the current lease runs the step and returns its result.
    EXPECT_EQ(checked([] { return 7; }, [&] { undone = true; }), 7);
    EXPECT_FALSE(undone);

    // current() is per thread.
    const Lease* seen_elsewhere = reinterpret_cast<const Lease*>(1);
    std::thread other([&] { seen_elsewhere = current(); });
    other.join();
    EXPECT_EQ(seen_elsewhere, nullptr);

    inner.release();
    ASSERT_NE(current(), nullptr);
    EXPECT_EQ(current()->id(), outer.id());
  }
  outer.release();
  EXPECT_EQ(current(), nullptr);
  EXPECT_THROW(checked([&] { ran = true; }, [&] { undone = true; }), ConfigError);
  EXPECT_FALSE(ran);
}

// Past the number of leases from which a thread's leases are indexed (held_leases.cpp), and
// back below it: current() and reentrancy stay right, released oldest first. The leases stay
// where they were made (in LockedCalls), as moving them would hand them over.
TEST_P(LockBehaviour, ManyLeasesOnOneThreadKeepCurrentAndReentrancyRight) {
  auto client = connect();
  constexpr int kLeases = 40;
  std::vector<std::unique_ptr<LockedCall>> calls;
  for (int i = 0; i < kLeases; ++i)
    calls.push_back(std::make_unique<LockedCall>(spec(type_, 30s),
                                                 keys(key_ + "-" + std::to_string(i)), *client));
  ASSERT_NE(current(), nullptr);
  EXPECT_EQ(current()->id(), calls.back()->lease().id());
  {
    Lease again = client->acquire(spec(type_, 30s, try_only), key_ + "-5");
    EXPECT_EQ(again.fence(), calls[5]->lease().fence()) << "reentered, not taken anew";
    EXPECT_EQ(current()->id(), again.id());
  }
  EXPECT_EQ(current()->id(), calls.back()->lease().id());

  const std::uint64_t fence_of_5 = calls[5]->lease().fence();
  for (int i = 0; i < kLeases - 1; ++i) calls[i].reset();
  ASSERT_NE(current(), nullptr);
  EXPECT_EQ(current()->id(), calls.back()->lease().id());
  calls.back().reset();
  EXPECT_EQ(current(), nullptr);

  Lease fresh = client->acquire(spec(type_, 30s, try_only), key_ + "-5");
  EXPECT_GT(fresh.fence(), fence_of_5) << "released, so taken anew";
  EXPECT_EQ(current()->id(), fresh.id());
}

TEST_P(LockBehaviour, ReleaseTwiceIsHarmlessAndMovedFromLeaseIsNotValid) {
  auto client = connect();
  auto other = connect();
  const auto lock_spec = spec(type_, 30s);

  Lease lease = client->acquire(lock_spec, key_);
  lease.release();
  EXPECT_FALSE(lease.valid());
  EXPECT_NO_THROW(lease.release());
  EXPECT_THROW(lease.ensure_held(), LockLost);
  {
    auto taken = other->try_acquire(lock_spec, key_);
    EXPECT_TRUE(taken.has_value()) << "the lock was not free after release()";
  }

  Lease original = client->acquire(lock_spec, key_);
  const std::uint64_t fence = original.fence();
  Lease moved(std::move(original));
  EXPECT_FALSE(original.valid());  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_TRUE(moved.valid());
  EXPECT_EQ(moved.fence(), fence);
  EXPECT_FALSE(other->try_acquire(lock_spec, key_).has_value()) << "moving released the lock";

  Lease assigned = client->acquire(lock_spec, key_ + "-other");
  assigned = std::move(moved);
  EXPECT_FALSE(moved.valid());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(assigned.valid());
  EXPECT_EQ(assigned.fence(), fence);
  EXPECT_FALSE(other->try_acquire(lock_spec, key_).has_value());

  assigned.release();
  EXPECT_TRUE(other->try_acquire(lock_spec, key_).has_value());
}

// Whether a release can keep the lock taken until hold_at_least has passed: not where a lock
// is a node or key that goes with its holder.
bool keeps_released_locks(Backend backend) {
  return backend != Backend::zookeeper && !is_etcd(backend);
}

// Runs `acquire` on another thread and hands back its lease, or its exception.
std::future<Lease> acquire_elsewhere(std::function<Lease()> acquire) {
  return std::async(std::launch::async, std::move(acquire));
}

TEST_P(LockBehaviour, ReadersShareTheLockAndWritersExcludeEveryone) {
  auto client = connect();
  const auto reading = distlock::spec(type_, 5s, distlock::read);
  const auto writing = distlock::spec(type_, 5s, distlock::write);
  if (!has_every_lock_kind(GetParam())) {
    for (const LockSpec& spec : {reading, writing}) {
      try {
        (void)client->acquire(spec, key_);
        ADD_FAILURE() << "a read-write lock was granted on " << url_;
      } catch (const ConfigError& error) {
        EXPECT_EQ(error.lock(), type_);
        EXPECT_EQ(error.server(), client->server());
        EXPECT_NE(std::string(error.what()).find("read-write locks"), std::string::npos)
            << error.what();
      }
    }
    EXPECT_TRUE(client->try_acquire(distlock::spec(type_, 5s), key_).has_value());
    return;
  }
  auto other_reader = connect();
  auto writer = connect();
  Lease first = client->acquire(reading, key_);
  auto second = other_reader->try_acquire(reading, key_);
  ASSERT_TRUE(second.has_value()) << "a second reader was refused beside the first";
  EXPECT_TRUE(first.valid());
  EXPECT_TRUE(second->valid());
  EXPECT_GT(second->fence(), first.fence()) << "each read acquisition has a fence of its own";
  EXPECT_FALSE(writer->try_acquire(writing, key_).has_value()) << "a writer got in beside readers";
  EXPECT_THROW(writer->acquire(distlock::spec(type_, 5s, wait(200ms), distlock::write), key_),
               LockTimeout);
  first.release();
  EXPECT_FALSE(writer->try_acquire(writing, key_).has_value())
      << "a writer got in beside the remaining reader";
  second->release();

  auto written = writer->try_acquire(writing, key_);
  ASSERT_TRUE(written.has_value()) << "the writer was refused once the readers had gone";
  EXPECT_TRUE(written->valid());
  EXPECT_GT(written->fence(), second->fence());
  EXPECT_FALSE(client->try_acquire(reading, key_).has_value()) << "a reader got in beside a writer";
  EXPECT_FALSE(other_reader->try_acquire(writing, key_).has_value())
      << "a second writer got in beside the first";
  written->release();
  EXPECT_TRUE(client->try_acquire(reading, key_).has_value());
}

// The backends that have read-write locks; those that have semaphores; those whose permits
// end with their ttl (a ZooKeeper permit ends with its holder's session).
class ReadWriteBehaviour : public LockBehaviour {};
class PermitBehaviour : public LockBehaviour {};
class ExpiringPermitBehaviour : public LockBehaviour {};
// The backends that have fair locks.
class FairBehaviour : public LockBehaviour {};

TEST_P(LockBehaviour, FairLocksAreTakenOrRefusedWithTheBackendNamed) {
  auto client = connect();
  const auto fair_lock = distlock::spec(type_, 5s, distlock::fair);
  if (has_every_lock_kind(GetParam())) {
    EXPECT_TRUE(client->try_acquire(fair_lock, key_).has_value());
    return;
  }
  try {
    (void)client->acquire(fair_lock, key_);
    ADD_FAILURE() << "a fair lock was granted on " << url_;
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.lock(), type_);
    EXPECT_EQ(error.server(), client->server());
    EXPECT_NE(std::string(error.what()).find("fair locks"), std::string::npos) << error.what();
  }
}

TEST_P(ReadWriteBehaviour, AWaitingWriterHoldsNewReadersBack) {
  auto reader = connect();
  auto late_reader = connect();
  auto writer = connect();
  const auto reading = distlock::spec(type_, 30s, distlock::read);
  Lease held = reader->acquire(reading, key_);
  auto written = acquire_elsewhere([&] {
    return writer->acquire(distlock::spec(type_, 30s, wait(20s), distlock::write), key_);
  });
  ASSERT_TRUE(eventually([&] { return writer->stats().waiting == 1; }))
      << "the writer never started waiting";

  EXPECT_FALSE(late_reader->try_acquire(reading, key_).has_value())
      << "a new reader got in ahead of the waiting writer";
  {
    // A reader that already reads may read again: holding it back would deadlock it.
    auto again = reader->try_acquire(reading, key_);
    EXPECT_TRUE(again.has_value()) << "a reentrant read was held back by the waiting writer";
  }
  held.release();
  ASSERT_EQ(written.wait_for(20s), std::future_status::ready);
  Lease writing = written.get();
  EXPECT_TRUE(writing.valid());
  EXPECT_FALSE(late_reader->try_acquire(reading, key_).has_value());
  writing.release();
  EXPECT_TRUE(late_reader->try_acquire(reading, key_).has_value());
}

TEST_P(ReadWriteBehaviour, TheWriterMayReadWhatItHoldsButAReaderCannotUpgrade) {
  auto client = connect();
  const auto reading = distlock::spec(type_, 5s, distlock::read);
  const auto writing = distlock::spec(type_, 5s, distlock::write);
  {
    Lease written = client->acquire(writing, key_);
    auto read_too = client->try_acquire(reading, key_);
    ASSERT_TRUE(read_too.has_value()) << "the write holder was refused a read";
    EXPECT_FALSE(free_for_another_thread(*client, reading, key_));
  }
  Lease read = client->acquire(reading, key_);
  try {
    (void)client->acquire(writing, key_);
    ADD_FAILURE() << "a read lock was upgraded";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot be upgraded"), std::string::npos)
        << error.what();
    EXPECT_EQ(error.server(), client->server());
  }
  EXPECT_TRUE(read.valid());
}

TEST_P(LockBehaviour, PermitsLetUpToTheirNumberOfHoldersIn) {
  auto client = connect();
  const auto three = distlock::spec(type_, 5s, distlock::permits(3));
  if (!has_every_lock_kind(GetParam())) {
    try {
      (void)client->acquire(three, key_);
      ADD_FAILURE() << "a semaphore was granted on " << url_;
    } catch (const ConfigError& error) {
      EXPECT_EQ(error.lock(), type_);
      EXPECT_NE(std::string(error.what()).find("semaphores"), std::string::npos) << error.what();
    }
    return;
  }
  auto other = connect();
  std::vector<Lease> held;
  held.push_back(client->acquire(three, key_));
  // One thread may take a second permit: permits are not reentered.
  held.push_back(client->acquire(three, key_));
  held.push_back(other->acquire(three, key_));
  for (std::size_t i = 1; i < held.size(); ++i) EXPECT_GT(held[i].fence(), held[i - 1].fence());
  EXPECT_FALSE(other->try_acquire(three, key_).has_value()) << "a fourth holder got in";
  // The exclusive lock of the same name is another lock.
  EXPECT_TRUE(other->try_acquire(distlock::spec(type_, 5s), key_).has_value());

  auto fourth = acquire_elsewhere([&] {
    return other->acquire(distlock::spec(type_, 5s, wait(20s), distlock::permits(3)), key_);
  });
  ASSERT_TRUE(eventually([&] { return other->stats().waiting == 1; }))
      << "the fourth never started waiting";
  const std::uint64_t last_fence = held.back().fence();
  held.erase(held.begin());
  ASSERT_EQ(fourth.wait_for(20s), std::future_status::ready);
  Lease got = fourth.get();
  EXPECT_TRUE(got.valid());
  EXPECT_GT(got.fence(), last_fence);
  EXPECT_FALSE(client->try_acquire(three, key_).has_value());
}

TEST_P(PermitBehaviour, OnePermitExcludesLikeALock) {
  auto client = connect();
  const auto one = distlock::spec(type_, 5s, distlock::permits(1));
  Lease held = client->acquire(one, key_);
  EXPECT_FALSE(client->try_acquire(one, key_).has_value()) << "the same thread got a second permit";
  EXPECT_FALSE(free_for_another_thread(*client, one, key_));
  held.release();
  EXPECT_TRUE(free_for_another_thread(*client, one, key_));
}

TEST_P(ExpiringPermitBehaviour, APermitThatIsNotRenewedComesBackAfterItsTtl) {
  auto holder = connect();
  auto waiter = connect();
  Lease lapsing =
      holder->acquire(distlock::spec(type_, 300ms, distlock::permits(1), renew(false)), key_);
  Lease next = waiter->acquire(distlock::spec(type_, 5s, wait(10s), distlock::permits(1)), key_);
  EXPECT_FALSE(lapsing.valid());
  EXPECT_TRUE(next.valid());
  EXPECT_GT(next.fence(), lapsing.fence());
}

TEST_P(FairBehaviour, FairWaitersAreGrantedInArrivalOrderEachWokenByOneRelease) {
  auto client = connect();
  const auto fair_lock = spec(type_, 30s, distlock::fair, wait(30s));
  Lease first = client->acquire(fair_lock, key_);

  // A client each, so that each waiter's wake-ups are counted apart.
  constexpr int kWaiters = 8;
  std::vector<std::shared_ptr<Client>> clients;
  std::vector<std::unique_ptr<Holder>> waiters;
  for (int i = 0; i < kWaiters; ++i) {
    clients.push_back(connect());
    waiters.push_back(std::make_unique<Holder>(*clients.back(), fair_lock, key_));
    ASSERT_TRUE(eventually([&] { return clients.back()->stats().waiting == 1; })) << "waiter " << i;
  }
  first.release();
  for (int i = 0; i < kWaiters; ++i) {
    ASSERT_TRUE(waiters[i]->granted_within(5s)) << "waiter " << i << " was not granted next";
    EXPECT_GT(waiters[i]->fence(), first.fence());
    for (int later = i + 1; later < kWaiters; ++later)
      EXPECT_FALSE(waiters[later]->granted_within(0ms)) << later << " overtook " << i;
    waiters[i]->release();
  }
  // Each waiter was woken once, by the release before its turn: a release that woke every
  // waiter would have woken the last one eight times.
  for (int i = 0; i < kWaiters; ++i) {
    const ClientStats stats = clients[i]->stats();
    EXPECT_EQ(stats.woken_by_release, 1u) << "waiter " << i;
    EXPECT_EQ(stats.woken_by_timeout, 0u) << "waiter " << i;
  }
}

TEST_P(FairBehaviour, AFairWaiterThatTimesOutLeavesTheQueueAtOnce) {
  auto client = connect();
  Lease held = client->acquire(spec(type_, 30s, distlock::fair), key_);
  // Long enough for the patient waiter to queue up behind it on a loaded machine.
  std::thread impatient([&] {
    EXPECT_THROW(client->acquire(spec(type_, 30s, distlock::fair, wait(3s)), key_), LockTimeout);
  });
  ASSERT_TRUE(eventually([&] { return client->stats().waiting == 1; }));
  Holder patient(*client, spec(type_, 30s, distlock::fair, wait(20s)), key_);
  ASSERT_TRUE(eventually([&] { return client->stats().waiting == 2; }));
  // On ZooKeeper and etcd the waiter behind watches the one ahead, so the departure wakes it to
  // look again, and that look may come after the release below: the wake-ups are counted from
  // here.
  const auto released_before = client->stats().woken_by_release;
  impatient.join();
  ASSERT_TRUE(eventually([&] { return client->stats().waiting == 1; }));

  // The release wakes the waiter behind, not the one that left: had it named the one that left,
  // the waiter behind would have been granted only by its own retry, a third of the ttl later.
  const ClientStats before = client->stats();
  held.release();
  ASSERT_TRUE(patient.granted_within(5s)) << "the release woke a waiter that had left";
  EXPECT_GT(patient.fence(), held.fence());
  const ClientStats after = client->stats();
  EXPECT_GE(after.woken_by_release - released_before, 1u);
  EXPECT_EQ(after.woken_by_timeout, before.woken_by_timeout) << "granted by its own retry";
}

TEST_P(FairBehaviour, AFairAndAnUnfairAcquisitionShareOneLock) {
  auto client = connect();
  Lease unfair = client->acquire(spec(type_, 30s), key_);
  EXPECT_FALSE(free_for_another_thread(*client, spec(type_, 30s, distlock::fair), key_));
  Holder fair_waiter(*client, spec(type_, 30s, distlock::fair, wait(20s)), key_);
  ASSERT_TRUE(eventually([&] { return client->stats().waiting == 1; }));
  unfair.release();
  ASSERT_TRUE(fair_waiter.granted_within(5s));
  EXPECT_FALSE(free_for_another_thread(*client, spec(type_, 30s), key_));
}

// hold_at_least: released at once, the lock stays taken (by nobody) until the time has passed
// since the grant, then is free; the release does not wait for it.
TEST_P(LockBehaviour, HoldAtLeastKeepsAnEarlyReleasedLockTakenUntilItsTime) {
  auto client = connect();
  // Long enough that the probe below comes before its end on a loaded machine.
  constexpr auto kKept = 3s;
  const auto held_spec = spec(type_, 30s, hold_at_least(kKept));
  if (!keeps_released_locks(GetParam())) {
    EXPECT_THROW(client->acquire(held_spec, key_), ConfigError)
        << url_ << " cannot keep a released lock until a time";
    return;
  }
  const auto granted_after = std::chrono::steady_clock::now();
  Lease lease = client->acquire(held_spec, key_);
  lease.release();
  const auto released_at = std::chrono::steady_clock::now();
  EXPECT_LT(released_at - granted_after, kKept) << "the release waited for the time";

  auto other = connect();
  const auto probe = spec(type_, 5s, try_only);
  EXPECT_FALSE(other->try_acquire(probe, key_).has_value()) << "freed before its time";
  const auto waiting = spec(type_, 5s, wait(20s));
  Lease next = other->acquire(waiting, key_);
  EXPECT_GE(std::chrono::steady_clock::now() - granted_after, kKept)
      << "granted to another before hold_at_least had passed since the first grant";
  EXPECT_GT(next.fence(), 0u);
}

// A release that keeps the lock taken (hold_at_least) tells the waiters until when: a waiter
// that saw the holder's 30 s ttl (or a fair waiter, its own ttl's third) does not sleep it out,
// but gets the lock soon after the kept time.
TEST_P(LockBehaviour, AKeptReleaseWakesItsWaitersByTheKeptTime) {
  if (!keeps_released_locks(GetParam())) {
    EXPECT_THROW(connect()->acquire(spec(type_, 30s, hold_at_least(1500ms)), key_), ConfigError);
    return;
  }
  struct Variant {
    std::string name;
    LockSpec held;
    LockSpec waiting;
  };
  const auto kept = hold_at_least(1500ms);
  std::vector<Variant> variants = {{"plain", spec(type_, 30s, kept), spec(type_, 30s, wait(30s))}};
  if (has_every_lock_kind(GetParam())) {
    variants.push_back({"fair", spec(type_, 30s, distlock::fair, kept),
                        spec(type_, 30s, distlock::fair, wait(30s))});
    variants.push_back({"reader-then-writer", spec(type_, 30s, distlock::read, kept),
                        spec(type_, 30s, distlock::write, wait(30s))});
    variants.push_back({"writer-then-reader", spec(type_, 30s, distlock::write, kept),
                        spec(type_, 30s, distlock::read, wait(30s))});
    variants.push_back(
        {"permit", spec(type_, 30s, permits(1), kept), spec(type_, 30s, permits(1), wait(30s))});
  }
  for (const Variant& variant : variants) {
    const std::string key = key_ + "-" + variant.name;
    auto holder = connect();
    auto other = connect();
    Lease held = holder->acquire(variant.held, key);
    Holder waiter(*other, variant.waiting, key);
    ASSERT_TRUE(eventually([&] { return other->stats().waiting == 1; })) << variant.name;
    held.release();
    EXPECT_TRUE(waiter.granted_within(6s))
        << variant.name << ": the waiter slept past the kept time";
  }
}

// A release after hold_at_least has passed frees the lock at once, as without it.
TEST_P(LockBehaviour, HoldAtLeastIsNothingOnceItsTimeHasPassed) {
  auto client = connect();
  const auto held_spec = spec(type_, 30s, hold_at_least(50ms));
  if (!keeps_released_locks(GetParam())) {
    EXPECT_THROW(client->acquire(held_spec, key_), ConfigError);
    return;
  }
  Lease lease = client->acquire(held_spec, key_);
  const auto until = std::chrono::steady_clock::now() + 50ms;
  while (std::chrono::steady_clock::now() < until) std::this_thread::yield();
  lease.release();
  EXPECT_TRUE(connect()->try_acquire(spec(type_, 5s, try_only), key_).has_value());
}

// per_key: one lock per key, taken in lock-name order whatever the argument order, equal keys
// once; current() is the first, current_leases() all, each with its own fence.
TEST_P(LockBehaviour, PerKeyTakesOneLockPerKeyInNameOrder) {
  auto client = connect();
  const auto per_key_spec = spec(type_, 30s, per_key, wait(20s));
  const std::string low = key_ + "-a";
  const std::string high = key_ + "-b";
  LockedCall call(per_key_spec, keys(high, low, high), *client);
  ASSERT_FALSE(call.busy());
  const auto leases = call.leases();
  ASSERT_EQ(leases.size(), 2u) << "equal keys take one lock";
  EXPECT_EQ(leases[0]->name(), std::string(type_) + ":" + low);
  EXPECT_EQ(leases[1]->name(), std::string(type_) + ":" + high);
  EXPECT_NE(leases[0]->fence(), 0u);
  EXPECT_NE(leases[1]->fence(), 0u);
  ASSERT_NE(current(), nullptr);
  EXPECT_EQ(current()->name(), leases[0]->name()) << "current() is the first lock";
  const auto seen = current_leases();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1]->name(), leases[1]->name());
  EXPECT_EQ(seen[1]->fence(), leases[1]->fence());
  EXPECT_FALSE(free_for_another_thread(*client, spec(type_, 5s), low));
  EXPECT_FALSE(free_for_another_thread(*client, spec(type_, 5s), high));
}

// All or none: when one key stays taken past the wait, the call takes none (the keys it had
// are given back) and throws LockTimeout; with on_busy(skip) it is busy instead.
TEST_P(LockBehaviour, PerKeyTakesAllOrNone) {
  auto holder = connect();
  const std::string low = key_ + "-a";
  const std::string high = key_ + "-b";
  Lease held = holder->acquire(spec(type_, 30s), high);
  auto client = connect();
  EXPECT_THROW(LockedCall(spec(type_, 30s, per_key, wait(200ms)), keys(low, high), *client),
               LockTimeout);
  EXPECT_TRUE(free_for_another_thread(*client, spec(type_, 5s), low))
      << "the first key was kept after the second timed out";
  LockedCall skipped(spec(type_, 30s, per_key, try_only, on_busy(skip)), keys(low, high), *client);
  EXPECT_TRUE(skipped.busy());
  EXPECT_TRUE(free_for_another_thread(*client, spec(type_, 5s), low));
}

// on_busy(skip): a taken lock makes the call busy instead of throwing, holding nothing.
TEST_P(LockBehaviour, OnBusySkipMakesTheCallBusyInsteadOfThrowing) {
  auto holder = connect();
  Lease held = holder->acquire(spec(type_, 30s), key_);
  auto client = connect();
  EXPECT_THROW(LockedCall(spec(type_, 30s, try_only), keys(key_), *client), LockTimeout);
  LockedCall call(spec(type_, 30s, wait(100ms), on_busy(skip)), keys(key_), *client);
  EXPECT_TRUE(call.busy());
  EXPECT_TRUE(call.leases().empty());
  held.release();
  LockedCall free_now(spec(type_, 30s, try_only, on_busy(skip)), keys(key_), *client);
  EXPECT_FALSE(free_now.busy());
}

// on_lost(fail): a call whose lease ran out while it ran throws LockLost on return; without
// it the call returns (and the loss is logged); while an exception is unwinding, nothing is
// thrown over it.
TEST_P(LockBehaviour, OnLostFailThrowsWhenTheLeaseRanOutDuringTheCall) {
  auto client = connect();
  const auto wait_until_lost = [](const LockedCall& call) {
    return eventually([&] { return !call.lease().valid(); });
  };
  EXPECT_THROW(
      {
        LockedCall call(spec(type_, 300ms, renew(false), on_lost(fail)), keys(key_), *client);
        ASSERT_TRUE(wait_until_lost(call));
      },
      LockLost);
  EXPECT_NO_THROW({
    LockedCall call(spec(type_, 300ms, renew(false)), keys(key_), *client);
    ASSERT_TRUE(wait_until_lost(call));
  });
  EXPECT_THROW(
      {
        LockedCall call(spec(type_, 300ms, renew(false), on_lost(fail)), keys(key_), *client);
        ASSERT_TRUE(wait_until_lost(call));
        throw std::runtime_error("the body failed");
      },
      std::runtime_error);
  EXPECT_NO_THROW({
    LockedCall call(spec(type_, 30s, on_lost(fail)), keys(key_), *client);
    EXPECT_TRUE(call.lease().valid());
  });
}

// Each lock kind but the exclusive one runs over TLS once, on rediss://: the other TLS topologies
// would repeat their plain forms.
bool kinds_backend(Backend backend) {
  return has_every_lock_kind(backend) && (!is_tls(backend) || backend == Backend::rediss);
}
// Where a permit runs out by its lease's expiry: ZooKeeper's goes with its session.
bool expiring_permits_backend(Backend backend) {
  return kinds_backend(backend) && backend != Backend::zookeeper;
}

INSTANTIATE_TEST_SUITE_P(Backends, LockBehaviour,
                         ::testing::ValuesIn(built_backends(every_backend)), backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, ReadWriteBehaviour,
                         ::testing::ValuesIn(built_backends(kinds_backend)), backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, PermitBehaviour,
                         ::testing::ValuesIn(built_backends(kinds_backend)), backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, ExpiringPermitBehaviour,
                         ::testing::ValuesIn(built_backends(expiring_permits_backend)),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, FairBehaviour,
                         ::testing::ValuesIn(built_backends(kinds_backend)), backend_name);

}  // namespace
}  // namespace distlock::testing
