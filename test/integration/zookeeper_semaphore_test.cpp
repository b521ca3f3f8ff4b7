// SPDX-License-Identifier: Apache-2.0
// Semaphores (distlock::permits) on ZooKeeper: the node layout of Curator's
// InterProcessSemaphoreV2 (a mutex under <lock>/locks, a lease node each under <lock>/leases),
// N holders and no more, a waiter woken by a release, a timed-out waiter leaving no node, a
// killed holder's permit given back when its session ends, renewals, permits(1) as a lock, and
// 4 processes x 4 threads never more than N at once.
//
// A plain ZooKeeper client (test/support/zookeeper_client) looks at the nodes. One ZooKeeper
// for the suite; distlock clients ask for a 4 s session.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "counter_file.h"
#include "integration_helpers.h"
#include "subprocess.h"
#include "zookeeper_client.h"
#include "zookeeper_helpers.h"
#include "zookeeper_server.h"
#include "zookeeper_suite.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

bool is_lease_node(const std::string& name) { return is_curator_node(name, "lease-"); }

class ZooKeeperSemaphore : public ZooKeeperSuiteTest {
 protected:
  // The children of a node that may not exist yet.
  std::vector<std::string> children_of(const std::string& path) {
    return raw().stat(path).has_value() ? raw().children(path) : std::vector<std::string>{};
  }
};

TEST_F(ZooKeeperSemaphore, PermitsAreLeaseNodesFencedByTheirCzxidAndNeverReenter) {
  // A 60 s session: the watchdog checks the held permits every 10 s (its exists calls are
  // round trips too), not every 1.3 s, which a sanitized run on a busy machine would reach
  // before the round trips of one acquisition are counted below.
  auto client = Client::connect(with_session_timeout(server().url(), 60s));
  const std::string key = unique_name("layout");
  const std::string path = zk_lock_path("pool", key);
  const auto pool = spec("pool", 30s, permits(3));

  // One thread, three acquisitions: three permits, not one reentered.
  std::vector<Lease> leases;
  for (int i = 0; i < 3; ++i) leases.push_back(client->acquire(pool, key));
  const auto nodes = raw().children(path + "/leases");
  ASSERT_EQ(nodes.size(), 3u) << "not one lease node per permit";
  std::set<std::uint64_t> czxids;
  for (const auto& node : nodes) {
    EXPECT_TRUE(is_lease_node(node)) << node << " is not named _c_<uuid>-lease-<seq>";
    const auto stat = raw().stat(path + "/leases/" + node);
    ASSERT_TRUE(stat.has_value());
    EXPECT_NE(stat->ephemeral_owner, 0) << node << " is not ephemeral";
    czxids.insert(static_cast<std::uint64_t>(stat->czxid));
  }
  EXPECT_TRUE(children_of(path + "/locks").empty()) << "the semaphore's mutex was kept";
  for (std::size_t i = 0; i < leases.size(); ++i) {
    EXPECT_EQ(czxids.count(leases[i].fence()), 1u)
        << "fence " << leases[i].fence() << " is no lease node's czxid";
    if (i > 0) {
      EXPECT_GT(leases[i].fence(), leases[i - 1].fence()) << "fences not increasing";
    }
  }

  // All taken: try_only finds none, and leaves no node behind. Tried through another client,
  // whose clean-up (on a busy machine, its reaper's) is not counted with `client`'s round trips
  // below.
  auto others = Client::connect(with_session_timeout(server().url(), 60s));
  EXPECT_FALSE(others->try_acquire(pool, key).has_value());
  EXPECT_THROW(others->acquire(spec("pool", 30s, permits(3), wait(300ms)), key), LockTimeout);
  EXPECT_EQ(raw().children(path + "/leases").size(), 3u) << "a waiter that gave up left a node";
  EXPECT_TRUE(children_of(path + "/locks").empty()) << "a waiter that gave up kept the mutex";

  // A release gives its permit back; the next holder's fence is larger than all before.
  const std::uint64_t highest = leases.back().fence();
  leases.front().release();
  EXPECT_EQ(raw().children(path + "/leases").size(), 2u) << "the release left its node";
  // Counted on a client with nothing else under way: `client`'s clean-up of its earlier
  // acquisitions (its reaper's, on a busy machine) counted 5 round trips more under ASan once.
  auto counted = connect();
  const auto before = counted->stats();
  auto again = counted->try_acquire(pool, key);
  ASSERT_TRUE(again.has_value()) << "the released permit did not come back";
  EXPECT_GT(again->fence(), highest);
  const auto after = counted->stats();
  ASSERT_EQ(after.renewals + after.renewal_failures, before.renewals + before.renewal_failures)
      << "a renewal ran while the acquisition's round trips were counted";
  // The mutex's create and listing, the lease's create and listing, the mutex's delete.
  EXPECT_EQ(after.round_trips - before.round_trips, 3u);
}

TEST_F(ZooKeeperSemaphore, WaiterGetsAPermitWhenAHolderReleases) {
  auto holders = connect();
  auto waiters = connect();
  const std::string key = unique_name("handoff");
  const auto pool = spec("pool", 30s, permits(2), wait(20s));
  Lease first = holders->acquire(pool, key);
  Lease second = holders->acquire(pool, key);

  auto waiting = std::async(std::launch::async, [&] { return waiters->acquire(pool, key); });
  ASSERT_EQ(waiting.wait_for(500ms), std::future_status::timeout)
      << "a third holder of a semaphore of 2";
  EXPECT_TRUE(eventually([&] { return waiters->stats().waiting == 1; }, 5s))
      << "the waiter is not waiting";

  const auto released_at = Clock::now();
  second.release();
  ASSERT_EQ(waiting.wait_for(5s), std::future_status::ready)
      << "the waiter was not woken by the release";
  Lease third = waiting.get();
  const auto took = Clock::now() - released_at;
  EXPECT_GT(third.fence(), second.fence());
  EXPECT_TRUE(first.valid());
  EXPECT_GE(waiters->stats().woken_by_release, 1u) << "woken by its deadline, not the release";
  EXPECT_EQ(waiters->stats().contended, 1u) << "one acquisition found the permits taken";
  std::cout << "[ figures  ] waiter granted "
            << std::chrono::duration_cast<std::chrono::microseconds>(took).count()
            << " us after the release\n";
}

TEST_F(ZooKeeperSemaphore, PermitOfAKilledHolderComesBackWhenItsSessionEnds) {
  constexpr std::string_view type = "killedpool";
  const std::string key = unique_name("holder");
  const std::string leases = zk_lock_path(type, key) + "/leases";
  Subprocess holder(DISTLOCK_COUNTER_WORKER,
                    {"--hold", url(), std::string(type), key, "1000", "2"});
  const auto line = holder.read_line(30s);
  ASSERT_TRUE(line.has_value()) << "the holder exited: " << holder.wait(10s).describe();
  ASSERT_EQ(line->rfind("acquired ", 0), 0u) << *line;
  const std::uint64_t holder_fence = std::stoull(line->substr(9));

  auto client = connect();
  const auto pool = spec(type, 1s, permits(2));
  Lease mine = client->acquire(pool, key);
  EXPECT_FALSE(client->try_acquire(pool, key).has_value()) << "the holder holds no permit";

  const auto killed_at = Clock::now();
  holder.kill(SIGKILL);
  const ExitStatus status = holder.wait(10s);
  EXPECT_TRUE(status.signaled && status.signal == SIGKILL) << status.describe();
  // The session outlives its process until the server expires it.
  EXPECT_FALSE(client->try_acquire(pool, key).has_value())
      << "the permit came back before the holder's session could have ended";

  std::optional<Lease> lease;
  ASSERT_NO_THROW(lease.emplace(
      client->acquire(spec(type, 1s, permits(2), wait(kZooKeeperSession + 6s)), key)));
  const auto waited = Clock::now() - killed_at;
  EXPECT_GT(lease->fence(), holder_fence);
  EXPECT_GE(waited, 2s) << "given back long before the 4 s session could expire";
  EXPECT_EQ(raw().children(leases).size(), 2u);
  EXPECT_TRUE(mine.valid());
  std::cout << "[ figures  ] killed holder's permit taken "
            << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()
            << " ms after SIGKILL (session timeout " << kZooKeeperSession.count() << " ms)\n";
}

TEST_F(ZooKeeperSemaphore, OnePermitExcludesLikeALock) {
  auto client = connect();
  const std::string key = unique_name("one");
  const auto one = spec("pool", 30s, permits(1), wait(60s));
  std::atomic<int> inside{0};
  std::atomic<int> most{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 15; ++i) {
        try {
          Lease lease = client->acquire(one, key);
          const int now = ++inside;
          int seen = most.load();
          while (now > seen && !most.compare_exchange_weak(seen, now)) {
          }
          std::this_thread::sleep_for(1ms);
          --inside;
        } catch (const std::exception& e) {
          ++failures;
          ADD_FAILURE() << e.what();
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(most.load(), 1) << "two holders of a semaphore of 1";
}

TEST_F(ZooKeeperSemaphore, RenewalsKeepPermits) {
  auto client = connect();
  const std::string key = unique_name("renewed");
  const std::string leases = zk_lock_path("pool", key) + "/leases";
  // A 2 s ttl, renewed by the watchdog every third of it: held until four renewals of each
  // lease went through, past the ttl, however long the machine takes to make them.
  const auto pool = spec("pool", 2s, permits(2));
  const auto granted = std::chrono::steady_clock::now();
  Lease first = client->acquire(pool, key);
  Lease second = client->acquire(pool, key);
  const auto nodes = raw().children(leases);
  ASSERT_TRUE(eventually([&] { return client->stats().renewals >= 8; }, 60s))
      << "the permits were not renewed";
  EXPECT_GT(std::chrono::steady_clock::now() - granted, 2s) << "held past the ttl";
  EXPECT_TRUE(first.valid()) << "the first permit ran out: not renewed";
  EXPECT_TRUE(second.valid()) << "the second permit ran out: not renewed";
  EXPECT_NO_THROW(first.ensure_held());
  EXPECT_NO_THROW(second.ensure_held());
  EXPECT_EQ(raw().children(leases), nodes) << "the lease nodes changed while held";
  EXPECT_FALSE(client->try_acquire(pool, key).has_value());
  second.release();
  EXPECT_TRUE(client->try_acquire(pool, key).has_value());
}

TEST_F(ZooKeeperSemaphore, FourProcessesOfFourThreadsNeverExceedThePermits) {
  constexpr int kPermits = 3;
  constexpr int kProcesses = 4;
  constexpr int kThreads = 4;
  constexpr int kIterations = 8;
  const std::string key = unique_name("multi");
  const auto dir = std::filesystem::temp_directory_path() / unique_name("distlock-permits");
  std::filesystem::create_directories(dir);
  const std::string intervals = (dir / "intervals").string();

  const std::string go = (dir / "go").string();

  // All connected before any contends: sixteen threads queue for three permits at once, and
  // holds up to 60 ms outlast a grant however slowly a loaded machine makes one.
  std::vector<std::unique_ptr<Subprocess>> workers;
  for (int p = 0; p < kProcesses; ++p) {
    workers.push_back(std::make_unique<Subprocess>(
        DISTLOCK_RW_WORKER,
        std::vector<std::string>{"--url", url(), "--type", "multipool", "--key", key, "--permits",
                                 std::to_string(kPermits), "--iterations",
                                 std::to_string(kIterations), "--threads", std::to_string(kThreads),
                                 "--intervals", intervals, "--pause-us", "60000", "--go", go}));
    ASSERT_EQ(workers.back()->read_line(30s), "ready") << "rw_worker did not start";
  }
  write_counter_file(go, {0, 0});
  for (auto& worker : workers) {
    const ExitStatus status = worker->wait(120s);
    EXPECT_TRUE(status.exited && status.code == 0) << status.describe() << "\n"
                                                   << worker->pending_output();
  }
  const auto holds = read_intervals(intervals);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(holds.size(), static_cast<std::size_t>(kProcesses * kThreads * kIterations));
  const int most = most_at_once(holds);
  EXPECT_LE(most, kPermits) << "more holders at once than permits";
  EXPECT_EQ(most, kPermits) << "the permits were never all in use: the test shows nothing";
  std::cout << "[ figures  ] " << holds.size() << " holds, at most " << most << " at once (permits "
            << kPermits << ")\n";
}

}  // namespace
}  // namespace distlock::testing
