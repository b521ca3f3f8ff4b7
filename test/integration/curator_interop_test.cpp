// SPDX-License-Identifier: Apache-2.0
// distlock and Apache Curator (Debian's jars, driven by test/interop/CuratorContender.java) on
// the same ZooKeeper lock paths: InterProcessMutex against distlock's exclusive lock,
// InterProcessReadWriteLock against distlock::read / distlock::write, InterProcessSemaphoreV2
// against distlock::permits, and LeaderLatch against Client::campaign. Each side must see the
// other's nodes as contenders: a shared counter stays exact, no write hold overlaps another hold,
// a semaphore's holders of both sides together never exceed its permits, and one side leads.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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

// How long a step of a Curator process (a JVM) may take: under a sanitizer on a loaded 2-core
// host, as CI runs the suite, a JVM's step has taken longer than the 10 s and 30 s it was given.
constexpr std::chrono::milliseconds kCuratorStep = 60s;

// "acquired <node> <ns>" (CuratorContender --hold): when Curator's acquire() returned, on
// CLOCK_MONOTONIC (System.nanoTime()), which steady_clock reads too.
std::optional<Clock::time_point> curator_acquired_at(const std::optional<std::string>& line) {
  if (!line || line->rfind("acquired ", 0) != 0) return std::nullopt;
  const auto space = line->rfind(' ');
  return Clock::time_point(std::chrono::nanoseconds(std::stoll(line->substr(space + 1))));
}

class CuratorInterop : public ZooKeeperSuiteTest {
 protected:
  void SetUp() override {
    ZooKeeperSuiteTest::SetUp();
    if (HasFatalFailure()) return;
    counter_ = (directory_.path() / "counter").string();
    intervals_ = (directory_.path() / "intervals").string();
    write_counter_file(counter_, {0, 0});
  }

  // Starts a Curator process and waits for its "ready".
  std::unique_ptr<Subprocess> curator(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--connect", server_->connect_string(), "--session-timeout-ms",
                                    std::to_string(kZooKeeperSession.count())};
    all.insert(all.end(), args.begin(), args.end());
    auto process = start_curator(all);
    const auto line = process->read_line(kCuratorStep);
    EXPECT_EQ(line, "ready") << "CuratorContender did not start";
    return process;
  }

  TempDirectory directory_;
  std::string counter_;
  std::string intervals_;
};

TEST_F(CuratorInterop, CuratorMutexAndDistlockExcludeEachOtherOnTheCounter) {
  // counter_worker takes the lock "counter:shared": /distlock/counter/shared.
  const std::string path = zk_lock_path("counter", "shared");
  const std::string go = (directory_.path() / "go").string();
  constexpr int kIterations = 40;
  constexpr int kThreads = 2;
  std::vector<std::unique_ptr<Subprocess>> curators;
  for (int i = 0; i < 2; ++i) {
    curators.push_back(
        curator({"--path", path, "--mode", "mutex", "--iterations", std::to_string(kIterations),
                 "--threads", std::to_string(kThreads), "--counter", counter_, "--intervals",
                 intervals_, "--pause-us", "1000", "--go", go}));
  }
  // The JVMs are up and connected: all start together.
  const auto distlock_started = Clock::now();
  std::vector<std::unique_ptr<Subprocess>> distlocks;
  for (int i = 0; i < 2; ++i) {
    distlocks.push_back(std::make_unique<Subprocess>(
        DISTLOCK_COUNTER_WORKER,
        std::vector<std::string>{url(), counter_, std::to_string(kIterations),
                                 std::to_string(kThreads)}));
  }
  write_counter_file(go, {0, 0});
  std::uint64_t distlock_holds = 0;
  for (auto& p : distlocks) distlock_holds += finish_worker(*p, "counter_worker");
  const auto distlock_finished = Clock::now();
  std::uint64_t curator_holds = 0;
  for (auto& p : curators) curator_holds += finish_worker(*p, "CuratorContender");
  EXPECT_EQ(curator_holds, 2u * kThreads * kIterations);
  EXPECT_EQ(distlock_holds, 2u * kThreads * kIterations);
  EXPECT_EQ(read_counter_file(counter_).count, curator_holds + distlock_holds)
      << "lost updates: a Curator and a distlock holder overlapped";
  EXPECT_TRUE(raw().children(path).empty());

  // They did contend: Curator held the lock while the distlock workers ran.
  const auto ns = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  int curator_holds_meanwhile = 0;
  for (const auto& hold : read_intervals(intervals_)) {
    if (hold.start > ns(distlock_started) && hold.end < ns(distlock_finished))
      ++curator_holds_meanwhile;
  }
  EXPECT_GT(curator_holds_meanwhile, 0)
      << "Curator never held the lock while distlock's workers ran";
  std::cout << "[ figures  ] " << curator_holds_meanwhile << " of " << curator_holds
            << " Curator holds fell while the distlock workers ran\n";
}

TEST_F(CuratorInterop, EachSideWaitsForTheOthersMutexHolder) {
  const std::string key = unique_name("handoff");
  const std::string path = zk_lock_path("interop", key);
  auto client = Client::connect(url());

  // Curator holds: distlock is refused, then woken by Curator's release.
  auto holder = curator({"--path", path, "--mode", "mutex", "--hold"});
  const auto acquired = holder->read_line(kCuratorStep);
  ASSERT_TRUE(acquired.has_value() && acquired->rfind("acquired ", 0) == 0)
      << "Curator did not acquire: " << acquired.value_or("(no output)");
  EXPECT_FALSE(client->try_acquire(spec("interop", 30s), key).has_value())
      << "distlock got the lock Curator holds";
  std::promise<void> got_it;
  auto distlock_granted = got_it.get_future();
  std::thread waiter([&] {
    try {
      Lease lease = client->acquire(spec("interop", 30s, wait(30s)), key);
      got_it.set_value();
    } catch (...) {
      got_it.set_exception(std::current_exception());
    }
  });
  const bool waiting = eventually([&] { return client->stats().waiting == 1; });
  EXPECT_TRUE(waiting);
  EXPECT_EQ(raw().children(path).size(), 2u);
  EXPECT_EQ(distlock_granted.wait_for(0s), std::future_status::timeout);
  holder->terminate(30s);  // the shutdown hook releases
  EXPECT_EQ(distlock_granted.wait_for(kCuratorStep), std::future_status::ready)
      << "distlock was not woken by Curator's release";
  waiter.join();
  EXPECT_GE(client->stats().woken_by_release, 1u);

  // distlock holds: Curator queues behind it, and gets the lock when distlock releases.
  Lease lease = client->acquire(spec("interop", 30s), key);
  auto follower = curator({"--path", path, "--mode", "mutex", "--hold"});
  ASSERT_TRUE(eventually([&] { return raw().children(path).size() == 2; }, kCuratorStep))
      << "Curator never queued: " << raw().children(path).size() << " nodes";
  // distlock's hold ends when its release begins; Curator's may only start after that.
  const auto released_at = Clock::now();
  lease.release();
  const auto line = follower->read_line(kCuratorStep);
  const auto granted_at = curator_acquired_at(line);
  ASSERT_TRUE(granted_at.has_value())
      << "Curator was not granted after distlock's release: " << line.value_or("(no output)");
  EXPECT_GT(*granted_at, released_at)
      << "Curator's hold began " << (released_at - *granted_at).count()
      << " ns before distlock's ended: it got the lock distlock held";
  EXPECT_FALSE(client->try_acquire(spec("interop", 30s), key).has_value());
  follower->terminate(30s);
}

// Curator's LeaderLatch and distlock's campaign on the same election path elect one leader:
// each waits while the other leads, and leads once the other resigns.
TEST_F(CuratorInterop, CuratorsLeaderLatchAndDistlocksCampaignElectOneLeader) {
  const std::string name = unique_name("latch");
  const std::string path = zk_lock_path("elections", name);
  auto client = Client::connect(url());
  const auto scheduler = election(std::string_view(name), 30s);

  // Curator leads: distlock is not elected, then is once Curator resigns.
  auto leader = curator({"--path", path, "--mode", "latch", "--hold"});
  const auto led = leader->read_line(kCuratorStep);
  ASSERT_TRUE(led.has_value() && led->rfind("acquired ", 0) == 0)
      << "Curator's latch did not lead: " << led.value_or("(no output)");
  EXPECT_FALSE(client->try_campaign(scheduler).has_value())
      << "distlock elected beside Curator's leader";
  auto campaign = std::async(std::launch::async, [&] {
    return client->campaign(election(std::string_view(name), 30s, wait(kCuratorStep)));
  });
  ASSERT_TRUE(eventually([&] { return raw().children(path).size() == 2; }, kCuratorStep))
      << "distlock never joined the election: " << raw().children(path).size() << " nodes";
  for (const auto& node : raw().children(path))
    EXPECT_TRUE(is_curator_node(node, "latch-")) << node << " is not named as LeaderLatch names";
  EXPECT_EQ(campaign.wait_for(0s), std::future_status::timeout);
  leader->terminate(30s);  // the shutdown hook closes the latch
  Leadership leadership = campaign.get();
  EXPECT_TRUE(leadership.valid());

  // distlock leads: Curator's latch waits, and leads once distlock resigns.
  auto follower = curator({"--path", path, "--mode", "latch", "--hold"});
  ASSERT_TRUE(eventually([&] { return raw().children(path).size() == 2; }, kCuratorStep))
      << "Curator never joined the election: " << raw().children(path).size() << " nodes";
  const auto resigned_at = Clock::now();
  leadership.resign();
  const auto line = follower->read_line(kCuratorStep);
  const auto follower_led_at = curator_acquired_at(line);
  ASSERT_TRUE(follower_led_at.has_value())
      << "Curator did not lead after distlock resigned: " << line.value_or("(no output)");
  EXPECT_GT(*follower_led_at, resigned_at) << "Curator led before distlock resigned";
  EXPECT_FALSE(client->try_campaign(scheduler).has_value());
  follower->terminate(30s);
}

TEST_F(CuratorInterop, ReadWriteLockRulesHoldAcrossCuratorAndDistlock) {
  const std::string key = unique_name("rw");
  const std::string path = zk_lock_path("interop", key);
  auto client = Client::connect(url());
  const auto reading = spec("interop", 30s, distlock::read);
  const auto writing = spec("interop", 30s, distlock::write);

  {
    // A Curator reader: distlock may read beside it, not write.
    auto reader = curator({"--path", path, "--mode", "read", "--hold"});
    const auto line = reader->read_line(kCuratorStep);
    ASSERT_TRUE(line.has_value() && line->rfind("acquired ", 0) == 0)
        << line.value_or("(no output)");
    auto shared = client->try_acquire(reading, key);
    EXPECT_TRUE(shared.has_value()) << "distlock could not read beside a Curator reader";
    shared.reset();
    EXPECT_FALSE(client->try_acquire(writing, key).has_value())
        << "distlock wrote beside a Curator reader";
    reader->terminate(30s);
  }
  {
    // A Curator writer: distlock may neither read nor write.
    auto writer = curator({"--path", path, "--mode", "write", "--hold"});
    const auto line = writer->read_line(kCuratorStep);
    ASSERT_TRUE(line.has_value() && line->rfind("acquired ", 0) == 0)
        << line.value_or("(no output)");
    EXPECT_FALSE(client->try_acquire(reading, key).has_value())
        << "distlock read beside a Curator writer";
    EXPECT_FALSE(client->try_acquire(writing, key).has_value())
        << "distlock wrote beside a Curator writer";
    writer->terminate(30s);
  }
  {
    // A distlock writer: a Curator reader queues, and gets in once distlock releases.
    Lease written = client->acquire(writing, key);
    auto reader = curator({"--path", path, "--mode", "read", "--hold"});
    ASSERT_TRUE(eventually([&] { return raw().children(path).size() == 2; }, kCuratorStep));
    const auto released_at = Clock::now();
    written.release();
    const auto line = reader->read_line(kCuratorStep);
    const auto granted_at = curator_acquired_at(line);
    ASSERT_TRUE(granted_at.has_value())
        << "the Curator reader was not granted after the distlock writer left: "
        << line.value_or("(no output)");
    EXPECT_GT(*granted_at, released_at) << "Curator read beside a distlock writer";
    reader->terminate(30s);
  }
  EXPECT_TRUE(eventually([&] { return raw().children(path).empty(); }, kCuratorStep));
}

TEST_F(CuratorInterop, ReadersAndWritersOfBothSidesNeverOverlapAWrite) {
  const std::string key = "mixed";
  const std::string type = unique_name("interop");
  const std::string path = zk_lock_path(type, key);
  constexpr int kIterations = 15;
  // Readers hold longer than writers, so that two readers overlap however slowly the workers
  // run (under ThreadSanitizer, 3 ms holds were once all apart).
  auto pause_us = [](std::string_view mode) { return mode == "read" ? "20000" : "3000"; };
  auto distlock_worker = [&](const char* mode) {
    return std::make_unique<Subprocess>(
        DISTLOCK_RW_WORKER,
        std::vector<std::string>{"--url", url(), "--type", type, "--key", key, "--mode", mode,
                                 "--iterations", std::to_string(kIterations), "--threads", "2",
                                 "--counter", counter_, "--intervals", intervals_, "--pause-us",
                                 pause_us(mode)});
  };
  const std::string go = (directory_.path() / "go").string();
  auto curator_worker = [&](const char* mode) {
    return curator({"--path", path, "--mode", mode, "--iterations", std::to_string(kIterations),
                    "--threads", "2", "--counter", counter_, "--intervals", intervals_,
                    "--pause-us", pause_us(mode), "--go", go});
  };
  // Curator first (its JVM takes a moment to start), waiting for the go; then distlock.
  auto curator_readers = curator_worker("read");
  auto curator_writer = curator_worker("write");
  auto distlock_readers = distlock_worker("read");
  auto distlock_writer = distlock_worker("write");
  write_counter_file(go, {0, 0});

  const std::uint64_t writes = finish_worker(*curator_writer, "Curator writer") +
                               finish_worker(*distlock_writer, "distlock writer");
  const std::uint64_t reads = finish_worker(*curator_readers, "Curator readers") +
                              finish_worker(*distlock_readers, "distlock readers");
  EXPECT_EQ(writes, 2u * 2 * kIterations);
  EXPECT_EQ(reads, 2u * 2 * kIterations);
  EXPECT_EQ(read_counter_file(counter_).count, writes) << "lost updates: two writers at once";

  const auto holds = read_intervals(intervals_);
  EXPECT_EQ(holds.size(), writes + reads);
  const std::string overlaps = write_overlaps(holds);
  EXPECT_EQ(overlaps, "") << "a write hold overlapped another hold:\n" << overlaps;
  const int shared = read_overlaps(holds);
  EXPECT_GT(shared, 0) << "no two readers ever held the lock together";
  // The two sides took turns: in start order, a distlock hold followed by a Curator hold or
  // the other way round.
  auto ordered = holds;
  std::sort(ordered.begin(), ordered.end(),
            [](const HoldInterval& a, const HoldInterval& b) { return a.start < b.start; });
  int turns = 0;
  for (std::size_t i = 1; i < ordered.size(); ++i) {
    if (ordered[i].who.rfind("curator", 0) != ordered[i - 1].who.rfind("curator", 0)) ++turns;
  }
  EXPECT_GT(turns, 2) << "Curator and distlock never took turns";
  std::cout << "[ figures  ] " << writes << " writes, " << reads << " reads, " << shared
            << " pairs of overlapping reads, " << turns << " turns between Curator and distlock\n";
  EXPECT_TRUE(raw().children(path).empty());
}

TEST_F(CuratorInterop, CuratorSemaphoreAndDistlockShareThePermits) {
  const std::string key = unique_name("pool");
  const std::string path = zk_lock_path("interop", key);
  const std::string leases = path + "/leases";
  auto client = Client::connect(url());
  const auto pool = spec("interop", 30s, permits(2));
  const auto holding = [&](int count) {
    return curator({"--path", path, "--mode", "semaphore", "--max-leases", "2", "--leases",
                    std::to_string(count), "--hold"});
  };

  {
    // Curator holds both leases: distlock gets none.
    auto holder = holding(2);
    const auto line = holder->read_line(kCuratorStep);
    ASSERT_TRUE(line.has_value() && line->rfind("acquired ", 0) == 0)
        << "Curator did not take its leases: " << line.value_or("(no output)");
    EXPECT_FALSE(client->try_acquire(pool, key).has_value())
        << "distlock took a third permit of 2 beside Curator's two";
    EXPECT_EQ(raw().children(leases).size(), 2u);
    holder->terminate(30s);
  }
  {
    // Curator holds one: distlock gets the other, and no more.
    auto holder = holding(1);
    const auto line = holder->read_line(kCuratorStep);
    ASSERT_TRUE(line.has_value() && line->rfind("acquired ", 0) == 0)
        << "Curator did not take its lease: " << line.value_or("(no output)");
    auto mine = client->try_acquire(pool, key);
    EXPECT_TRUE(mine.has_value()) << "distlock got no permit beside Curator's one of 2";
    EXPECT_FALSE(client->try_acquire(pool, key).has_value())
        << "distlock took a second permit beside Curator's one of 2";
    const auto nodes = raw().children(leases);
    EXPECT_EQ(nodes.size(), 2u);
    for (const auto& node : nodes) {
      EXPECT_TRUE(is_curator_node(node, "lease-")) << node << " is not named as Curator names";
    }
    holder->terminate(30s);
  }
  {
    // distlock holds both permits: Curator waits, and gets one when distlock returns one.
    Lease first = client->acquire(pool, key);
    Lease second = client->acquire(pool, key);
    auto follower = holding(1);
    // Curator's lease node waits beside distlock's two (holding the semaphore's mutex).
    ASSERT_TRUE(eventually([&] { return raw().children(leases).size() == 3; }, kCuratorStep))
        << "Curator never queued: " << raw().children(leases).size() << " lease nodes";
    EXPECT_FALSE(client->try_acquire(pool, key).has_value());
    const auto released_at = Clock::now();
    second.release();
    const auto line = follower->read_line(kCuratorStep);
    const auto granted_at = curator_acquired_at(line);
    ASSERT_TRUE(granted_at.has_value())
        << "Curator was not granted after distlock's release: " << line.value_or("(no output)");
    EXPECT_GT(*granted_at, released_at) << "Curator took a third permit of 2";
    EXPECT_FALSE(client->try_acquire(pool, key).has_value())
        << "distlock took a third permit of 2 beside Curator's one";
    EXPECT_TRUE(first.valid());
    follower->terminate(30s);
  }
  EXPECT_TRUE(eventually([&] { return raw().children(leases).empty(); }, kCuratorStep));
}

TEST_F(CuratorInterop, SemaphoreHoldersOfBothSidesNeverExceedThePermits) {
  constexpr int kPermits = 3;
  constexpr int kIterations = 15;
  const std::string key = "pool";
  const std::string type = unique_name("interop");
  const std::string path = zk_lock_path(type, key);
  const std::string go = (directory_.path() / "go").string();
  std::vector<std::unique_ptr<Subprocess>> curators;
  for (int i = 0; i < 2; ++i) {
    curators.push_back(
        curator({"--path", path, "--mode", "semaphore", "--max-leases", std::to_string(kPermits),
                 "--iterations", std::to_string(kIterations), "--threads", "2", "--intervals",
                 intervals_, "--pause-us", "20000", "--go", go}));
  }
  // Both sides connected and waiting for the go: they contend from the same moment, however
  // long a JVM or a sanitized process takes to start.
  std::vector<std::unique_ptr<Subprocess>> distlocks;
  for (int i = 0; i < 2; ++i) {
    distlocks.push_back(std::make_unique<Subprocess>(
        DISTLOCK_RW_WORKER,
        std::vector<std::string>{"--url", url(), "--type", type, "--key", key, "--permits",
                                 std::to_string(kPermits), "--iterations",
                                 std::to_string(kIterations), "--threads", "2", "--intervals",
                                 intervals_, "--pause-us", "20000", "--go", go}));
    ASSERT_EQ(distlocks.back()->read_line(kCuratorStep), "ready") << "rw_worker did not start";
  }
  write_counter_file(go, {0, 0});
  std::uint64_t total = 0;
  for (auto& p : distlocks) total += finish_worker(*p, "rw_worker --permits");
  for (auto& p : curators) total += finish_worker(*p, "CuratorContender --mode semaphore");
  EXPECT_EQ(total, 4u * 2 * kIterations);

  const auto holds = read_intervals(intervals_);
  EXPECT_EQ(holds.size(), total);
  const int most = most_at_once(holds);
  EXPECT_LE(most, kPermits) << "more holders at once than permits";
  int curator_holds = 0;
  for (const auto& hold : holds) curator_holds += hold.who.rfind("curator", 0) == 0 ? 1 : 0;
  EXPECT_EQ(curator_holds, 2 * 2 * kIterations);
  // Both sides held permits together: some Curator hold overlapped some distlock hold.
  int mixed = 0;
  for (const auto& a : holds) {
    for (const auto& b : holds) {
      if (a.who.rfind("curator", 0) == 0 && b.who.rfind("distlock", 0) == 0 && a.start < b.end &&
          b.start < a.end)
        ++mixed;
    }
  }
  EXPECT_GT(mixed, 0) << "no Curator and distlock holders ever shared the semaphore";
  std::cout << "[ figures  ] " << holds.size() << " holds, at most " << most << " at once (permits "
            << kPermits << "), " << mixed << " overlapping Curator-distlock pairs\n";
  EXPECT_TRUE(eventually([&] { return raw().children(path + "/leases").empty(); }, kCuratorStep));
}

}  // namespace
}  // namespace distlock::testing
