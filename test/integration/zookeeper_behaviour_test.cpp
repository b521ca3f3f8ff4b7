// SPDX-License-Identifier: Apache-2.0
// Behaviours of the ZooKeeper backend that the shared suite cannot show: the node layout
// (Curator's names, czxid fences, container lock nodes), one round trip for an uncontended
// acquisition, a killed holder's lock freed when its session ends, a node deleted behind the
// holder's back, the herd (one watch notification per release among 50 waiters), the
// read-write rules, and ACLs from URL credentials.
//
// A plain ZooKeeper client (test/support/zookeeper_client) looks at and changes the nodes.
// One ZooKeeper for the suite; distlock clients ask for a 4 s session.
#include <gtest/gtest.h>
#include <signal.h>
#include <zookeeper/zookeeper.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "captured_log.h"
#include "integration_helpers.h"
#include "subprocess.h"
#include "tcp_proxy.h"
#include "zookeeper_client.h"
#include "zookeeper_helpers.h"
#include "zookeeper_server.h"
#include "zookeeper_suite.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

class ZooKeeperBehaviour : public ZooKeeperSuiteTest {
 protected:
  // The one contender node under `path`; fails the test when there is not exactly one.
  std::string only_child(const std::string& path) {
    const auto children = raw().children(path);
    EXPECT_EQ(children.size(), 1u) << path << " has " << children.size() << " children";
    return children.empty() ? std::string() : path + "/" + children.front();
  }
};

TEST_F(ZooKeeperBehaviour, LockNodesAreNamedAsCuratorNamesThemAndFencedByTheirCzxid) {
  auto client = connect();
  const std::string key = unique_name("layout");
  const std::string path = zk_lock_path("order", key);

  Lease lease = client->acquire(spec("order", 30s), key);
  EXPECT_EQ(lease.name(), "order:" + key);
  auto children = raw().children(path);
  ASSERT_EQ(children.size(), 1u) << "no node (or more than one) under " << path;
  EXPECT_TRUE(is_mutex_node(children[0])) << children[0] << " is not named _c_<uuid>-lock-<seq>";
  const auto node = raw().stat(path + "/" + children[0]);
  ASSERT_TRUE(node.has_value());
  EXPECT_NE(node->ephemeral_owner, 0) << "the contender node is not ephemeral";
  EXPECT_EQ(lease.fence(), static_cast<std::uint64_t>(node->czxid)) << "the fence is not the czxid";

  {
    // Reentrant: no second node, the same fence.
    Lease again = client->acquire(spec("order", 30s), key);
    EXPECT_EQ(again.fence(), lease.fence());
    EXPECT_EQ(raw().children(path), children);
  }
  EXPECT_EQ(raw().children(path), children) << "one release of two removed the node";
  lease.release();
  EXPECT_TRUE(raw().children(path).empty()) << "the node outlived its release";
  // The lock node is a container: the server removes it once empty (the suite's server checks
  // every second), so locks leave no garbage behind.
  EXPECT_TRUE(eventually([&] { return !raw().stat(path).has_value(); }, 15s))
      << path << " stayed after its last contender left: not a container node";

  // A lock without a key lives at /distlock/<type>.
  const std::string type = unique_name("keyless");
  Lease keyless = client->acquire(spec(std::string_view(type), 30s));
  EXPECT_EQ(keyless.name(), type);
  const auto keyless_children = raw().children(zk_lock_path(type));
  ASSERT_EQ(keyless_children.size(), 1u);
  EXPECT_TRUE(is_mutex_node(keyless_children[0])) << keyless_children[0];
  keyless.release();

  // Read and write contenders: Curator's InterProcessReadWriteLock names.
  const std::string rw_key = unique_name("rw");
  const std::string rw_path = zk_lock_path("order", rw_key);
  {
    Lease reading = client->acquire(spec("order", 30s, distlock::read), rw_key);
    const std::string read_node = only_child(rw_path);
    EXPECT_TRUE(is_read_node(read_node.substr(rw_path.size() + 1))) << read_node;
    const auto stat = raw().stat(read_node);
    ASSERT_TRUE(stat.has_value());
    EXPECT_EQ(reading.fence(), static_cast<std::uint64_t>(stat->czxid));
  }
  // A scope exit does not wait for the deletion's reply: another session sees it once made.
  EXPECT_TRUE(eventually([&] { return raw().children(rw_path).empty(); }));
  {
    Lease writing = client->acquire(spec("order", 30s, distlock::write), rw_key);
    const std::string write_node = only_child(rw_path);
    EXPECT_TRUE(is_write_node(write_node.substr(rw_path.size() + 1))) << write_node;
    const auto stat = raw().stat(write_node);
    ASSERT_TRUE(stat.has_value());
    EXPECT_EQ(writing.fence(), static_cast<std::uint64_t>(stat->czxid));
  }
  EXPECT_TRUE(eventually([&] { return raw().children(rw_path).empty(); }));
}

TEST_F(ZooKeeperBehaviour, UncontendedAcquisitionTakesOneRoundTrip) {
  // Under a chroot of plain nodes (not containers, which the server may remove between two
  // acquisitions), so the acquisition finds its lock node's parents in place.
  const std::string chroot = "/" + unique_name("trips");
  const std::string key = unique_name("lock");
  const std::string path = chroot + zk_lock_path("trips", key);
  std::string node = chroot;
  raw().create(node);
  for (const std::string& part : {std::string("/distlock"), std::string("/trips"), "/" + key})
    raw().create(node += part);
  auto client =
      Client::connect(with_session_timeout("zookeeper://" + server().connect_string() + chroot));
  const auto trips = [&] { return client->stats().round_trips; };
  // Without the watchdog, no renewal can fall between the counts.
  const auto lock_spec = spec("trips", 30s, renew(false));

  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("acquisition " + std::to_string(i));
    const auto before = trips();
    Lease lease = client->acquire(lock_spec, key);
    // The create and the listing go out back to back: the listing, answered in order after
    // the create, already holds the node created.
    EXPECT_EQ(trips() - before, 1u) << "round trips for an uncontended acquisition";
    const auto children = raw().children(path);
    ASSERT_EQ(children.size(), 1u);
    const auto stat = raw().stat(path + "/" + children[0]);
    ASSERT_TRUE(stat.has_value());
    EXPECT_EQ(lease.fence(), static_cast<std::uint64_t>(stat->czxid));
    const auto held = trips();
    lease.release();
    EXPECT_EQ(trips() - held, 1u) << "round trips for a release";
    EXPECT_TRUE(raw().children(path).empty()) << "the node outlived its release";
  }
}

TEST_F(ZooKeeperBehaviour, WaitersThatGiveUpLeaveNoNodeBehind) {
  const std::string key = unique_name("giveup");
  const std::string path = zk_lock_path("giveup", key);
  auto holder = connect();
  auto other = connect();
  Lease held = holder->acquire(spec("giveup", 30s), key);
  const std::string holder_node = only_child(path);

  EXPECT_FALSE(other->try_acquire(spec("giveup", 30s), key).has_value());
  EXPECT_THROW(other->acquire(spec("giveup", 30s, try_only), key), LockTimeout);
  EXPECT_THROW(other->acquire(spec("giveup", 30s, wait(300ms)), key), LockTimeout);
  EXPECT_THROW(other->acquire(spec("giveup", 30s, wait(300ms), distlock::write), key), LockTimeout);
  EXPECT_FALSE(other->try_acquire(spec("giveup", 30s, distlock::read), key).has_value());
  // Waiters on other threads of the same client, timing out together.
  std::vector<std::thread> threads;
  std::atomic<int> timeouts{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      try {
        other->acquire(spec("giveup", 30s, wait(400ms)), key);
      } catch (const LockTimeout&) {
        ++timeouts;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(timeouts.load(), 4);

  const auto children = raw().children(path);
  EXPECT_EQ(children.size(), 1u) << "nodes left by waiters that gave up";
  EXPECT_EQ(path + "/" + children.at(0), holder_node);
  EXPECT_EQ(other->stats().waiting, 0u);

  // Nothing stale queues ahead of the next contender.
  held.release();
  EXPECT_TRUE(other->try_acquire(spec("giveup", 30s), key).has_value());
}

TEST_F(ZooKeeperBehaviour, ChrootInTheUrlPrefixesEveryPath) {
  const std::string chroot = "/" + unique_name("app");
  raw().create(chroot);
  auto client =
      Client::connect(with_session_timeout("zookeeper://" + server().connect_string() + chroot));
  const std::string key = unique_name("rooted");
  Lease lease = client->acquire(spec("order", 30s), key);
  const auto children = raw().children(chroot + zk_lock_path("order", key));
  ASSERT_EQ(children.size(), 1u) << "no contender under the chroot " << chroot;
  EXPECT_TRUE(is_mutex_node(children[0])) << children[0];
  EXPECT_TRUE(raw().children(zk_lock_path("order", key)).empty()) << "a node outside the chroot";
  // A client without the chroot is another namespace: the same lock name is free there.
  auto unrooted = connect();
  EXPECT_TRUE(unrooted->try_acquire(spec("order", 30s), key).has_value());
  // Within the chroot, it is taken.
  auto rooted =
      Client::connect(with_session_timeout("zookeeper://" + server().connect_string() + chroot));
  EXPECT_FALSE(rooted->try_acquire(spec("order", 30s), key).has_value());
}

TEST_F(ZooKeeperBehaviour, LockOfAKilledHolderIsFreedWhenItsSessionEnds) {
  constexpr std::string_view type = "killed";
  const std::string key = unique_name("holder");
  const std::string path = zk_lock_path(type, key);
  Subprocess holder(DISTLOCK_COUNTER_WORKER, {"--hold", url(), std::string(type), key, "1000"});
  const auto line = holder.read_line(30s);
  ASSERT_TRUE(line.has_value()) << "the holder exited: " << holder.wait(10s).describe();
  ASSERT_EQ(line->rfind("acquired ", 0), 0u) << *line;
  const std::uint64_t holder_fence = std::stoull(line->substr(9));
  const std::string holder_node = only_child(path);

  auto client = connect();
  const auto lock_spec = spec(type, 1s);
  EXPECT_FALSE(client->try_acquire(lock_spec, key).has_value()) << "the holder does not hold it";

  const auto killed_at = Clock::now();
  holder.kill(SIGKILL);
  const ExitStatus status = holder.wait(10s);
  EXPECT_TRUE(status.signaled && status.signal == SIGKILL) << status.describe();
  // The session outlives its process until the server expires it.
  EXPECT_FALSE(client->try_acquire(lock_spec, key).has_value())
      << "the lock came free before the holder's session could have ended";

  std::optional<Lease> lease;
  ASSERT_NO_THROW(
      lease.emplace(client->acquire(spec(type, 1s, wait(kZooKeeperSession + 6s)), key)));
  const auto waited = Clock::now() - killed_at;
  EXPECT_TRUE(lease->valid());
  EXPECT_GT(lease->fence(), holder_fence);
  EXPECT_GE(waited, 2s) << "freed long before the 4 s session could expire";
  const std::string node = only_child(path);
  EXPECT_NE(node, holder_node) << "the dead holder's node is still there";
  std::cout << "[ figures  ] killed holder's lock taken "
            << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()
            << " ms after SIGKILL (session timeout " << kZooKeeperSession.count() << " ms)\n";
}

TEST_F(ZooKeeperBehaviour, NodeDeletedBehindTheHoldersBackIsSeenAsLost) {
  auto client = connect();
  const std::string key = unique_name("deleted");
  Event lost;  // declared before the lease, so it outlives the lease's callback
  Lease lease = client->acquire(spec("order", 30s), key);
  lease.on_lost([&](const LockLost& e) { lost.set(e.what()); });
  EXPECT_FALSE(lost.is_set());
  const std::string node = only_child(zk_lock_path("order", key));
  ASSERT_FALSE(node.empty());

  ASSERT_EQ(raw().remove(node), ZOK);
  ASSERT_TRUE(lost.wait_for(15s)) << "on_lost was not called after the node was deleted";
  EXPECT_NE(lost.detail().find(lease.name()), std::string::npos) << lost.detail();
  EXPECT_FALSE(lease.valid());
  try {
    lease.ensure_held();
    ADD_FAILURE() << "ensure_held() did not throw";
  } catch (const LockLost& e) {
    EXPECT_EQ(e.lock(), lease.name());
    EXPECT_EQ(e.server(), client->server());
  }
  EXPECT_GE(client->stats().lost, 1u);

  auto other = connect();
  auto taken = other->try_acquire(spec("order", 30s), key);
  ASSERT_TRUE(taken.has_value()) << "the lock is not free after its node was deleted";
  EXPECT_GT(taken->fence(), lease.fence());
  taken->release();
  EXPECT_THROW(lease.release(), LockLost) << "the work ran unprotected: release must say so";
}

// A lease leaving its scope sends its node's deletion and goes on (the thread may be a
// coroutine's, which must not wait a round trip): with the server not answering, the scope is
// left all the same, and the node goes once the server answers again.
TEST_F(ZooKeeperBehaviour, AScopeExitDoesNotWaitForTheServersReply) {
  TcpProxy proxy(server().port());
  auto client = Client::connect(with_session_timeout("zookeeper://" + proxy.address()) +
                                "&command_timeout=60s");
  const std::string key = unique_name("unawaited");
  std::optional<Lease> lease = client->acquire(spec("unawaited", 30s), key);
  const std::string path = zk_lock_path("unawaited", key);
  ASSERT_EQ(raw().children(path).size(), 1u);
  proxy.freeze();
  Event left;
  std::thread leaving([&] {
    lease.reset();
    left.set();
  });
  // Waited for, the reply could not come before the client lost the frozen connection, two
  // thirds of the 4 s session timeout later.
  const bool left_while_frozen = left.wait_for(2s);
  proxy.thaw();
  leaving.join();
  EXPECT_TRUE(left_while_frozen) << "the scope exit waited for the server";
  EXPECT_TRUE(eventually([&] { return raw().children(path).empty(); }))
      << "the node outlived its release";
  EXPECT_EQ(client->stats().release_failures, 0u);
}

// The C client drops the replies still queued for its completion thread when it closes: the
// session waits for them first, so a scope exit's report outlives its client's end.
TEST_F(ZooKeeperBehaviour, AScopeExitsReportComesBeforeItsClientIsGone) {
  CapturedLog log(LogLevel::error);
  constexpr int kClients = 10;
  for (int i = 0; i < kClients; ++i) {
    auto client = connect();
    const std::string key = unique_name("reported");
    std::optional<Lease> lease = client->acquire(spec("reported", 30s), key);
    // Deleted behind the holder's back: the release's reply says the node was not there.
    ASSERT_EQ(raw().remove(only_child(zk_lock_path("reported", key))), ZOK);
    lease.reset();
    client.reset();
  }
  std::size_t reported = 0;
  for (const auto& line : log.lines())
    if (line.find("while releasing on scope exit") != std::string::npos) ++reported;
  EXPECT_EQ(reported, static_cast<std::size_t>(kClients));
}

TEST_F(ZooKeeperBehaviour, CheckedRunsUndoWhenTheNodeIsDeletedDuringTheStep) {
  auto client = connect();
  const std::string key = unique_name("checked");
  Event lost;
  Lease lease = client->acquire(spec("order", 30s), key);
  lease.on_lost([&](const LockLost&) { lost.set(); });
  const std::string node = only_child(zk_lock_path("order", key));

  bool undone = false;
  int undo_argument = 0;
  bool lost_during_step = false;
  try {
    checked(
        lease,
        [&] {
          EXPECT_EQ(raw().remove(node), ZOK);
          lost_during_step = lost.wait_for(15s);
          return 5;
        },
        [&](int result) {
          undone = true;
          undo_argument = result;
        });
    ADD_FAILURE() << "checked() did not throw";
  } catch (const LockLost& e) {
    EXPECT_EQ(e.lock(), lease.name());
  }
  EXPECT_TRUE(lost_during_step) << "on_lost was not called";
  EXPECT_TRUE(undone);
  EXPECT_EQ(undo_argument, 5);

  bool ran = false;
  EXPECT_THROW(checked(
                   lease, [&] { ran = true; }, [] {}),
               LockLost);
  EXPECT_FALSE(ran);
}

TEST_F(ZooKeeperBehaviour, HerdOfFiftyWaitersGetsOneNotificationPerRelease) {
  constexpr int kWaiters = 50;
  const std::string key = unique_name("herd");
  const std::string path = zk_lock_path("herd", key);
  const auto lock_spec = spec("herd", 30s, wait(120s));

  auto holder = connect();
  Lease first = holder->acquire(lock_spec, key);

  std::vector<std::shared_ptr<Client>> clients;
  for (int i = 0; i < kWaiters; ++i) clients.push_back(connect());
  auto sum = [&](auto field) {
    std::uint64_t total = 0;
    for (const auto& c : clients) total += field(c->stats());
    return total;
  };
  auto notifications = [&] { return sum([](const ClientStats& s) { return s.notifications; }); };

  std::mutex mutex;
  std::condition_variable granted_changed;
  std::deque<std::pair<int, std::uint64_t>> granted;  // (waiter, fence), in grant order
  std::deque<Event> release_now(kWaiters);
  std::atomic<int> holders{0};
  std::atomic<int> overlaps{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kWaiters; ++i) {
    threads.emplace_back([&, i] {
      try {
        Lease lease = clients[static_cast<std::size_t>(i)]->acquire(lock_spec, key);
        if (++holders != 1) ++overlaps;
        {
          std::lock_guard lock(mutex);
          granted.emplace_back(i, lease.fence());
        }
        granted_changed.notify_all();
        release_now[static_cast<std::size_t>(i)].wait_for(120s);
        --holders;
        lease.release();
      } catch (const std::exception& e) {
        ADD_FAILURE() << "waiter " << i << ": " << e.what();
        ++failures;
        granted_changed.notify_all();
      }
    });
  }
  // On the way out (an assertion failed, say), the chain of holders runs to its end.
  struct Joiner {
    Lease& first;
    std::vector<std::thread>& threads;
    std::deque<Event>& events;
    ~Joiner() {
      try {
        first.release();
      } catch (...) {
      }
      for (auto& e : events) e.set();
      for (auto& t : threads) t.join();
    }
  } joiner{first, threads, release_now};

  const bool all_waiting = eventually(
      [&] { return sum([](const ClientStats& s) { return s.waiting; }) == kWaiters; }, 60s);
  ASSERT_TRUE(all_waiting) << "not all " << kWaiters << " waiters started waiting";
  EXPECT_EQ(raw().children(path).size(), static_cast<std::size_t>(kWaiters + 1));
  const std::uint64_t trips_waiting = sum([](const ClientStats& s) { return s.round_trips; });
  EXPECT_EQ(notifications(), 0u) << "waiters were notified before any release";

  // Release after release: each hands the lock to exactly one waiter, which alone is notified.
  first.release();
  std::uint64_t previous_fence = first.fence();
  std::vector<std::uint64_t> per_release;
  for (int r = 0; r < kWaiters; ++r) {
    std::pair<int, std::uint64_t> next;
    {
      std::unique_lock lock(mutex);
      ASSERT_TRUE(granted_changed.wait_for(
          lock, 30s, [&] { return static_cast<int>(granted.size()) > r || failures > 0; }))
          << "release " << r << " woke nobody";
      ASSERT_EQ(failures.load(), 0);
      next = granted[static_cast<std::size_t>(r)];
    }
    per_release.push_back(notifications());
    EXPECT_EQ(per_release.back(), static_cast<std::uint64_t>(r + 1))
        << "after release " << r << ": notifications among all waiters";
    EXPECT_GT(next.second, previous_fence) << "grant " << r << " out of fence order";
    previous_fence = next.second;
    release_now[static_cast<std::size_t>(next.first)].set();
  }
  for (auto& t : threads) t.join();
  threads.clear();

  EXPECT_EQ(overlaps.load(), 0) << "two waiters held the lock at once";
  const std::uint64_t total = notifications();
  EXPECT_EQ(total, static_cast<std::uint64_t>(kWaiters))
      << "watch notifications for " << kWaiters << " releases";
  EXPECT_EQ(sum([](const ClientStats& s) { return s.woken_by_release; }),
            static_cast<std::uint64_t>(kWaiters));
  EXPECT_EQ(sum([](const ClientStats& s) { return s.woken_by_timeout; }), 0u);
  EXPECT_EQ(sum([](const ClientStats& s) { return s.acquired; }),
            static_cast<std::uint64_t>(kWaiters));
  EXPECT_TRUE(raw().children(path).empty());

  const std::uint64_t trips = sum([](const ClientStats& s) { return s.round_trips; });
  const double per_acquisition = static_cast<double>(trips) / kWaiters;
  const double before_wait = static_cast<double>(trips_waiting) / kWaiters;
  std::cout << "[ figures  ] herd of " << kWaiters << ": " << total << " notifications for "
            << kWaiters << " releases (" << static_cast<double>(total) / kWaiters
            << " per release); server round trips per contended acquire+release " << per_acquisition
            << " (" << before_wait << " until waiting, " << per_acquisition - before_wait
            << " from wake-up to release)\n";
  RecordProperty("notifications_per_release",
                 std::to_string(static_cast<double>(total) / kWaiters));
  RecordProperty("round_trips_per_acquisition", std::to_string(per_acquisition));
  // A herd-free recipe needs a handful: create, list, watch the predecessor; after the
  // wake-up, list again; delete. Re-reading the children per waiter per release would be
  // dozens.
  EXPECT_LE(per_acquisition, 8.0) << "round trips per contended acquisition";
}

TEST_F(ZooKeeperBehaviour, ReadersWaitOnlyForEarlierWriters) {
  const std::string key = unique_name("order");
  const auto reading = spec("rw", 30s, distlock::read);
  const auto writing = spec("rw", 30s, wait(30s), distlock::write);
  auto first_reader = connect();
  auto writer = connect();
  auto late_reader = connect();

  Lease read_lease = first_reader->acquire(reading, key);
  std::promise<void> writer_got_it;
  auto writer_granted = writer_got_it.get_future();
  Event writer_release;
  std::thread writer_thread([&] {
    try {
      Lease lease = writer->acquire(writing, key);
      writer_got_it.set_value();
      writer_release.wait_for(60s);
      // Awaited: a scope exit would not wait for the server, and the reader below asks it next.
      lease.release();
    } catch (...) {
      writer_got_it.set_exception(std::current_exception());
    }
  });
  struct Joiner {
    Lease& reader;
    std::thread& thread;
    Event& event;
    ~Joiner() {
      try {
        reader.release();
      } catch (...) {
      }
      event.set();
      if (thread.joinable()) thread.join();
    }
  } joiner{read_lease, writer_thread, writer_release};

  ASSERT_TRUE(eventually([&] { return writer->stats().waiting == 1; }))
      << "the writer never waited";
  EXPECT_EQ(raw().children(zk_lock_path("rw", key)).size(), 2u);
  // A reader that comes after a waiting writer queues behind it (Curator's rule).
  EXPECT_FALSE(late_reader->try_acquire(reading, key).has_value())
      << "a reader overtook an earlier waiting writer";
  EXPECT_EQ(writer_granted.wait_for(0s), std::future_status::timeout)
      << "the writer got in beside a reader";

  read_lease.release();
  ASSERT_EQ(writer_granted.wait_for(20s), std::future_status::ready)
      << "the writer was not granted when the reader left";
  ASSERT_NO_THROW(writer_granted.get());
  EXPECT_FALSE(late_reader->try_acquire(reading, key).has_value()) << "a reader beside a writer";
  EXPECT_FALSE(first_reader->try_acquire(reading, key).has_value()) << "a reader beside a writer";

  writer_release.set();
  writer_thread.join();
  auto now_reading = late_reader->try_acquire(reading, key);
  EXPECT_TRUE(now_reading.has_value()) << "no reader admitted once the writer left";
}

TEST_F(ZooKeeperBehaviour, WriteHolderMayTakeTheReadLock) {
  const std::string key = unique_name("downgrade");
  auto client = connect();
  auto other = connect();
  const auto reading = spec("rw", 30s, wait(5s), distlock::read);
  const auto writing = spec("rw", 30s, distlock::write);

  Lease write_lease = client->acquire(writing, key);
  std::optional<Lease> read_lease;
  ASSERT_NO_THROW(read_lease.emplace(client->acquire(reading, key)))
      << "the write holder could not take the read lock";
  EXPECT_TRUE(read_lease->valid());
  EXPECT_TRUE(write_lease.valid());
  // Other owners stay out: another thread of the same client, another client.
  bool other_thread_got_it = true;
  std::thread other_thread([&] {
    other_thread_got_it = client->try_acquire(spec("rw", 30s, distlock::read), key).has_value();
  });
  other_thread.join();
  EXPECT_FALSE(other_thread_got_it) << "another thread read beside the writer";
  EXPECT_FALSE(other->try_acquire(spec("rw", 30s, distlock::read), key).has_value());

  write_lease.release();
  // Still a reader: writers stay out, readers may come in.
  EXPECT_TRUE(read_lease->valid());
  EXPECT_FALSE(other->try_acquire(writing, key).has_value()) << "a writer beside the reader";
  auto second_reader = other->try_acquire(spec("rw", 30s, distlock::read), key);
  EXPECT_TRUE(second_reader.has_value()) << "a reader was refused beside a reader";
  second_reader.reset();
  read_lease->release();
  EXPECT_TRUE(other->try_acquire(writing, key).has_value());
}

TEST_F(ZooKeeperBehaviour, DigestCredentialsKeepOtherUsersFromDeletingLockNodes) {
  const std::string key = unique_name("secured");
  const std::string path = zk_lock_path("secured", key);
  auto alice = Client::connect(
      with_session_timeout("zookeeper://alice:secret@" + server().connect_string()));
  EXPECT_EQ(alice->server().find("secret"), std::string::npos) << alice->server();
  Event lost;
  Lease lease = alice->acquire(spec("secured", 30s), key);
  lease.on_lost([&](const LockLost&) { lost.set(); });

  ZooKeeperClient as_alice(server().connect_string(), 10s, std::string("alice:secret"));
  ZooKeeperClient as_bob(server().connect_string(), 10s, std::string("bob:secret"));
  const auto children = as_alice.children(path);
  ASSERT_EQ(children.size(), 1u);
  const std::string node = path + "/" + children[0];

  // Deleting a node takes DELETE on its parent, the lock node.
  bool anyone_may_delete = false;
  bool alice_may_delete = false;
  for (const NodeAcl& acl : as_alice.acl(path)) {
    if (acl.scheme == "world" && (acl.perms & ZOO_PERM_DELETE) != 0) anyone_may_delete = true;
    if (acl.scheme == "digest" && acl.id.rfind("alice:", 0) == 0 &&
        (acl.perms & ZOO_PERM_DELETE) != 0) {
      alice_may_delete = true;
    }
  }
  EXPECT_FALSE(anyone_may_delete) << "the lock node's ACL lets anyone delete its contenders";
  EXPECT_TRUE(alice_may_delete) << "the lock node's ACL names no digest entry for alice";

  EXPECT_EQ(zookeeper_error_name(raw().remove(node)), "ZNOAUTH")
      << "an anonymous client deleted it";
  EXPECT_EQ(zookeeper_error_name(as_bob.remove(node)), "ZNOAUTH") << "another user deleted it";
  EXPECT_TRUE(as_alice.stat(node).has_value());
  EXPECT_TRUE(lease.valid());
  EXPECT_FALSE(lost.is_set());

  // Alice herself may: the ACL is not a blanket refusal.
  EXPECT_EQ(zookeeper_error_name(as_alice.remove(node)), "ZOK");
  EXPECT_TRUE(lost.wait_for(15s)) << "the holder did not notice its node deleted";
}

}  // namespace
}  // namespace distlock::testing
