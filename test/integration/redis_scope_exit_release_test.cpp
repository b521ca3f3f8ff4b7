// SPDX-License-Identifier: Apache-2.0
// A Lease that leaves its scope on Redis sends the release and returns without its reply; the
// next command on that connection, the release courier, or the client's end reads the reply
// and reports what it says. These tests hold the release back (CLIENT PAUSE), make it find the
// lock gone, or lose it on the way (an idle connection the server closed, a partition, a cut),
// and check that it is delivered all the same or reported once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "captured_log.h"
#include "integration_helpers.h"
#include "lock_connection_kinds.h"
#include "redis_script_text.h"
#include "redis_suite.h"
#include "tcp_proxy.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

class RedisScopeExitRelease : public RedisSuiteTest {
 protected:
  void TearDown() override {
    if (server_ != nullptr) server_->cli({"CLIENT", "UNPAUSE"});
  }

  std::vector<std::string> logged() const { return log_.lines(); }
  // One line logged: the scope exit's release found `lock` no longer held.
  void expect_one_loss_logged(const std::string& lock) const {
    const auto lines = logged();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find(lock), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("no longer held"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("on scope exit"), std::string::npos) << lines[0];
  }
  // A lock that stays taken for a minute unless released: a test that sees it free saw the
  // release.
  static LockSpec long_lock() { return spec("order", 60s); }

  CapturedLog log_{LogLevel::warning};
};

TEST_F(RedisScopeExitRelease, DoesNotWaitForTheReleasesReply) {
  // A scope exit that waited for the reply would time out after 300 ms and log the failure.
  auto client = connect("?command_timeout=300ms");
  std::optional<Lease> lease = client->acquire(long_lock(), "1");
  // Scripts and PUBLISH wait until the pause ends; reads go on.
  ASSERT_EQ(redis().cli({"CLIENT", "PAUSE", "60000", "WRITE"}), "OK");
  lease.reset();
  EXPECT_EQ(redis().cli({"EXISTS", "distlock:{order:1}"}), "1")
      << "the release ran during the pause";
  ASSERT_EQ(redis().cli({"CLIENT", "UNPAUSE"}), "OK");

  // Released once the pause ended, without waiting for the lock's minute.
  auto other = connect();
  const Lease next = other->acquire(spec("order", 60s, wait(20s)), "1");
  EXPECT_TRUE(next.valid());
  // Its end reads the reply, which says released.
  client.reset();
  EXPECT_TRUE(logged().empty()) << logged().front();
}

TEST_F(RedisScopeExitRelease, ALossItFindsIsLoggedWhenTheNextCommandReadsTheReply) {
  auto client = connect();
  std::optional<Lease> lease = client->acquire(long_lock(), "2");
  ASSERT_EQ(redis().cli({"DEL", "distlock:{order:2}"}), "1");
  lease.reset();
  // The same thread's next command goes out on the connection the release took.
  EXPECT_TRUE(client->try_acquire(spec("other", 60s), "2").has_value());

  expect_one_loss_logged("order:2");
}

TEST_F(RedisScopeExitRelease, ALossItFindsIsLoggedByTheClientsEndAtTheLatest) {
  auto client = connect();
  std::optional<Lease> lease = client->acquire(long_lock(), "3");
  ASSERT_EQ(redis().cli({"DEL", "distlock:{order:3}"}), "1");
  lease.reset();
  client.reset();

  expect_one_loss_logged("order:3");
}

TEST_F(RedisScopeExitRelease, AReleaseTheServerDidNotKnowTheScriptOfIsSentAgain) {
  auto client = connect();
  std::optional<Lease> lease = client->acquire(long_lock(), "4");
  // The server loses its script cache, as on a restart.
  ASSERT_EQ(redis().cli({"SCRIPT", "FLUSH"}), "OK");
  lease.reset();
  // Reads the release's NOSCRIPT, sends the release again with the script's text, then takes
  // its own lock the same way.
  EXPECT_TRUE(client->try_acquire(spec("other", 60s), "4").has_value());

  auto other = connect();
  const Lease next = other->acquire(spec("order", 60s, wait(20s)), "4");
  EXPECT_TRUE(next.valid());
  // Its end reads the reply, which says released.
  client.reset();
  EXPECT_TRUE(logged().empty()) << logged().front();
}

TEST_F(RedisScopeExitRelease, TheSameThreadsNextAcquisitionOfTheLockComesAfterTheRelease) {
  // Threads sharing a client share its connections: an acquisition on another connection than
  // the release's could overtake it, take over the owner's own hold, and make the release
  // report a loss.
  auto client = connect();
  constexpr int kThreads = 8;
  constexpr int kCycles = 300;
  std::vector<std::uint64_t> last_fences(kThreads, 0);
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < kCycles; ++i) {
          const Lease lease = client->acquire(long_lock(), "thread-" + std::to_string(t));
          if (lease.fence() <= last_fences[t]) throw std::runtime_error("the fence went back");
          last_fences[t] = lease.fence();
        }
      } catch (const std::exception& error) {
        failures[t] = error.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  client.reset();
  for (const auto& failure : failures) EXPECT_EQ(failure, "");
  EXPECT_TRUE(logged().empty()) << logged().size() << " lines, the first: " << logged().front();
}

// The same promise when the server has lost its scripts and another thread reads the replies:
// a paused server answers the commands queued on the connection in one write, read by the
// caller that waits longest (an explicit release). Scope exits of other locks go first, so that
// sending theirs again keeps that reader busy. The release's NOSCRIPT must be answered by its
// EVAL before the acquisition behind it learns its own NOSCRIPT: else the acquisition's EVAL can
// reach the server first, take over the owner's own hold, and the late release reports a loss.
TEST_F(RedisScopeExitRelease, AReleaseSentAgainAfterNoscriptStillGoesOutBeforeTheNextAcquisition) {
  auto client = connect();
  // The shared connection, as CLIENT LIST shows it while the pause holds its first script back.
  const auto blocked_at_server = [&] {
    for (const auto& line : lines_of(redis().cli({"CLIENT", "LIST"})))
      if (line.find(" flags=b ") != std::string::npos) return true;
    return false;
  };
  constexpr int kRounds = 30;
  constexpr int kReleasesBefore = 50;
  for (int round = 0; round < kRounds; ++round) {
    const std::string key = "again-" + std::to_string(round);
    Event reader_holds;
    Event acquirer_holds;
    Event reader_go;
    Event acquirer_go;
    Event released;
    auto reader = std::async(std::launch::async, [&] {
      Lease lease = client->acquire(spec("reader", 60s), key);
      reader_holds.set();
      if (reader_go.wait_for(20s)) lease.release();
    });
    struct Acquired {
      std::uint64_t released_fence = 0;
      std::string released_id;
      std::optional<Lease> next;
    };
    auto acquirer = std::async(std::launch::async, [&] {
      Acquired acquired;
      std::vector<Lease> before;
      for (int i = 0; i < kReleasesBefore; ++i)
        before.push_back(client->acquire(spec("before", 60s), key + "-" + std::to_string(i)));
      std::optional<Lease> lease = client->acquire(long_lock(), key);
      acquired.released_fence = lease->fence();
      acquired.released_id = lease->id();
      acquirer_holds.set();
      if (!acquirer_go.wait_for(20s)) return acquired;
      before.clear();
      lease.reset();
      released.set();
      acquired.next = client->acquire(long_lock(), key);
      return acquired;
    });
    ASSERT_TRUE(reader_holds.wait_for(20s));
    ASSERT_TRUE(acquirer_holds.wait_for(20s));
    // The server loses its script cache, as on a restart, and holds every script back.
    ASSERT_EQ(redis().cli({"SCRIPT", "FLUSH"}), "OK");
    ASSERT_EQ(redis().cli({"CLIENT", "PAUSE", "20000", "WRITE"}), "OK");
    reader_go.set();
    ASSERT_TRUE(eventually(blocked_at_server)) << "the reader's release did not reach the server";
    acquirer_go.set();
    ASSERT_TRUE(released.wait_for(20s));
    ASSERT_EQ(redis().cli({"CLIENT", "UNPAUSE"}), "OK");
    ASSERT_EQ(reader.wait_for(30s), std::future_status::ready);
    ASSERT_EQ(acquirer.wait_for(30s), std::future_status::ready);
    reader.get();
    const Acquired acquired = acquirer.get();
    ASSERT_TRUE(acquired.next.has_value());

    // The lock is held by the new acquisition alone, under a new fence.
    const Lease& next = *acquired.next;
    EXPECT_GT(next.fence(), acquired.released_fence);
    const std::string hash = "distlock:{order:" + key + "}";
    EXPECT_EQ(redis().cli({"HGET", hash, "fence"}), std::to_string(next.fence()));
    EXPECT_EQ(redis().cli({"HGET", hash, "count"}), "1");
    EXPECT_EQ(redis().cli({"HEXISTS", hash, "h:" + next.id()}), "1");
    EXPECT_EQ(redis().cli({"HEXISTS", hash, "h:" + acquired.released_id}), "0");
  }
  // Its end reads the replies still owed and reports what they say.
  client.reset();
  const auto lines = logged();
  EXPECT_TRUE(lines.empty()) << lines.size() << " lines logged in " << kRounds
                             << " rounds, the first: " << lines.front();
}

TEST_F(RedisScopeExitRelease, AnExplicitReleaseStillWaitsAndThrowsOnALoss) {
  auto client = connect();
  Lease lease = client->acquire(long_lock(), "5");
  ASSERT_EQ(redis().cli({"DEL", "distlock:{order:5}"}), "1");
  EXPECT_THROW(lease.release(), LockLost);
  EXPECT_TRUE(logged().empty()) << logged().front();
}

// The thread that reads a scope exit's reply runs its report, which reaches the service's event
// hook (and logger); another thread's acquisition on the same connection goes ahead while that
// hook is still busy. The hook waits until the acquisition has completed, with a bound: had it
// held the acquisition up, it would see none.
TEST_F(RedisScopeExitRelease, AnEventHookBusyWithTheReportHoldsUpNoOtherAcquisition) {
  Event in_hook;
  Event other_acquired;
  std::atomic<bool> acquired_while_in_hook{false};
  Options options;
  options.on_event = [&](const distlock::Event& event) {
    if (event.kind != EventKind::lost || in_hook.is_set()) return;
    in_hook.set();
    acquired_while_in_hook = other_acquired.wait_for(20s);
  };
  auto client = Client::connect(redis().url(), options);
  std::optional<Lease> lease = client->acquire(long_lock(), "6");
  ASSERT_EQ(redis().cli({"DEL", "distlock:{order:6}"}), "1");
  lease.reset();
  // Its command goes out after the release, so it reads the release's reply.
  std::thread reader(
      [&] { EXPECT_TRUE(client->try_acquire(spec("other", 60s), "6").has_value()); });
  const bool reported = in_hook.wait_for(20s);
  if (reported) {
    const Lease other = client->acquire(spec("third", 60s), "6");
    other_acquired.set();
  }
  reader.join();

  ASSERT_TRUE(reported) << "the release's loss was not reported";
  EXPECT_TRUE(acquired_while_in_hook) << "the acquisition waited for the event hook";
  expect_one_loss_logged("order:6");
}

// Pooled connections (max_connections=1: one): an acquisition of a lock whose release went out
// on a connection that another caller holds waits for that connection, to go out after the
// release. When that caller's command fails and the connection is closed instead of given back,
// the waiter wakes and takes another connection (a closed connection answers what it owed, and
// the pool tells its waiters after closing it).
TEST_F(RedisScopeExitRelease, AWaiterForAConnectionThatIsClosedGoesOnAnother) {
  TcpProxy proxy(redis().port());
  auto client = Client::connect("redis://" + proxy.address() +
                                "?max_connections=1&command_timeout=2s&outage_limit=60s");
  { Lease released = client->acquire(long_lock(), "closed"); }
  ASSERT_TRUE(eventually([&] {
    return redis().cli({"EXISTS", "distlock:{order:closed}"}) == "0";
  })) << "the release did not reach the server";
  proxy.freeze();
  const auto round_trips = client->stats().round_trips;
  auto holding = std::async(std::launch::async, [&] {
    // Borrows the one connection, which still owes the release's reply, and times out on it.
    EXPECT_THROW(client->acquire(spec("other", 60s, try_only), "x"), BackendUnavailable);
  });
  ASSERT_TRUE(eventually([&] { return client->stats().round_trips > round_trips; }));
  auto waiting = std::async(std::launch::async, [&] {
    return client->acquire(spec("order", 60s, wait(60s)), "closed").fence();
  });
  ASSERT_EQ(holding.wait_for(30s), std::future_status::ready);
  proxy.thaw();
  ASSERT_EQ(waiting.wait_for(30s), std::future_status::ready)
      << "the waiter for the closed connection was never woken";
  EXPECT_GT(waiting.get(), 0u);
}

// Twenty threads leave their scopes while the server drops new connections' SYNs and the
// client knows its shared connection broken. None makes the connection again, one after another
// under its mutex (twenty connect timeouts): each returns within two connect timeouts, and the
// courier delivers every release once the server answers again. (A pooled scope exit makes its
// own connection, at once with the others, and waits for the pool at its cap, which keeps this
// client's next acquisition of the lock behind the release.)
TEST_F(RedisScopeExitRelease, ScopeExitsDoNotConnectInTurnToAServerThatDropsConnections) {
  constexpr auto kConnectTimeout = 2s;
  constexpr int kLeases = 20;
  TcpProxy proxy(redis().port());
  Options options;
  options.connect_timeout = kConnectTimeout;
  auto client = Client::connect("redis://" + proxy.address() + "?outage_limit=60s", options);
  std::vector<std::optional<Lease>> leases(kLeases);
  const auto key = [](int i) { return "blackhole-" + std::to_string(i); };
  for (int i = 0; i < kLeases; ++i) leases[i].emplace(client->acquire(long_lock(), key(i)));
  proxy.blackhole_connections();
  proxy.cut_all();
  // A command finds the connection broken, and cannot make a new one.
  EXPECT_THROW((void)client->try_acquire(spec("probe", 60s), "probe"), BackendUnavailable);

  std::vector<Clock::duration> took(kLeases);
  std::vector<std::thread> threads;
  threads.reserve(kLeases);
  for (int i = 0; i < kLeases; ++i) {
    threads.emplace_back([&, i] {
      const auto start = Clock::now();
      leases[i].reset();
      took[i] = Clock::now() - start;
    });
  }
  for (auto& thread : threads) thread.join();
  const auto longest = *std::max_element(took.begin(), took.end());
  EXPECT_LT(longest, 2 * kConnectTimeout)
      << std::chrono::duration_cast<std::chrono::milliseconds>(longest).count() << " ms";

  proxy.answer_connections();
  auto other = connect();
  for (int i = 0; i < kLeases; ++i)
    EXPECT_NO_THROW(other->acquire(spec("order", 60s, wait(10s)), key(i)))
        << "the release of " << key(i) << " did not reach the server";
  EXPECT_EQ(client->stats().release_failures, 0u);
}

// A scope exit's release reaches the server even when the connection it went out on did not
// carry it (release_courier.h): the lock is free for another client within kDelivered, far
// below its minute, and nothing is logged. GetParam() picks the connections the lock commands
// take (lock_connection_kinds.h).
class RedisScopeExitDelivery : public RedisScopeExitRelease,
                               public ::testing::WithParamInterface<std::string_view> {
 protected:
  static constexpr auto kDelivered = 10s;

  // The lines about releases: the release listener's subscription, cut too, warns on its own.
  std::vector<std::string> errors() const { return log_.lines_at(LogLevel::error); }

  void TearDown() override {
    if (server_ != nullptr) server_->cli({"CONFIG", "SET", "timeout", "0"});
    RedisScopeExitRelease::TearDown();
  }

  // `address` (host:port), with the connections GetParam() picks; a release that cannot get
  // through is tried again for `outage_limit` (none by default).
  std::shared_ptr<Client> connect_to(const std::string& address,
                                     std::string_view outage_limit = "0s",
                                     const Options& options = {}) {
    return Client::connect("redis://" + address + "?" + std::string(GetParam()) +
                               "&outage_limit=" + std::string(outage_limit),
                           options);
  }
  // Each connection kind's own lock: one left taken must not hold up the other's test.
  std::string key_for(std::string_view name) const {
    return for_lock_connection_kind(name, GetParam());
  }
  // Another client takes the lock `key` that a scope exit released.
  void expect_released(const std::string& key) {
    auto other = connect();
    EXPECT_NO_THROW(other->acquire(spec("order", 60s, wait(kDelivered)), key))
        << "the release did not reach the server";
  }
  // The server's connections that carry commands, not redis-cli asking nor the release
  // listener's subscription.
  int command_connections() {
    int count = 0;
    for (const auto& line : lines_of(redis().cli({"CLIENT", "LIST"})))
      if (line.find(" cmd=client") == std::string::npos &&
          line.find(" sub=0 psub=0") != std::string::npos)
        ++count;
    return count;
  }
};

INSTANTIATE_TEST_SUITE_P(Connections, RedisScopeExitDelivery, lock_connection_kinds(),
                         lock_connection_kind_name);

// The server closes connections idle past its `timeout` (as load balancers and managed Redis
// services do): a release written into one would never run.
TEST_P(RedisScopeExitDelivery, OnAConnectionTheServerClosedWhileIdle) {
  ASSERT_EQ(redis().cli({"CONFIG", "SET", "timeout", "1"}), "OK");
  auto client = connect_to("127.0.0.1:" + std::to_string(redis().port()));
  std::optional<Lease> lease = client->acquire(long_lock(), key_for("idle"));
  ASSERT_TRUE(eventually([&] { return command_connections() == 0; }, 30s))
      << "the server kept the idle connections open";
  lease.reset();

  expect_released(key_for("idle"));
  EXPECT_EQ(client->stats().release_failures, 0u);
  client.reset();
  EXPECT_TRUE(errors().empty()) << errors().front();
}

// The release goes out into a connection that breaks before the server reads it (a partition,
// then a cut): the courier finds the connection broken and sends the release again.
TEST_P(RedisScopeExitDelivery, WhenItsConnectionBreaksBeforeTheServerReadsIt) {
  TcpProxy proxy(redis().port());
  auto client = connect_to(proxy.address());
  std::optional<Lease> lease = client->acquire(long_lock(), key_for("broken"));
  proxy.freeze();
  lease.reset();
  proxy.cut_all();
  proxy.thaw();

  expect_released(key_for("broken"));
  EXPECT_EQ(client->stats().release_failures, 0u);
  client.reset();
  EXPECT_TRUE(errors().empty()) << errors().front();
}

// The release ran, and its connection was cut before the reply came back: sent again, it finds
// the hold gone, which is no loss to report.
TEST_P(RedisScopeExitDelivery, WhenItsReplyIsLost) {
  TcpProxy proxy(redis().port());
  auto client = connect_to(proxy.address());
  std::optional<Lease> lease = client->acquire(long_lock(), key_for("no-reply"));
  proxy.cut_after_reply_to(
      redis().cli({"SCRIPT", "LOAD", redis_script_text({"lib/release_hold", "release"})}));
  lease.reset();
  ASSERT_TRUE(eventually([&] { return proxy.reply_cuts() == 1; }));

  expect_released(key_for("no-reply"));
  EXPECT_EQ(redis().cli({"EXISTS", "distlock:{order:" + key_for("no-reply") + "}"}), "0");
  EXPECT_EQ(client->stats().release_failures, 0u);
  EXPECT_EQ(client->stats().lost, 0u);
  client.reset();
  EXPECT_TRUE(errors().empty()) << errors().front();
}

// The lease ran out before its scope ended (no renewal, a ttl shorter than the work), and its
// release went into a connection that broke: sent again, it finds the hold gone, which here is
// the loss the lease did not notice, reported as the reply itself would have.
TEST_P(RedisScopeExitDelivery, SentAgainAfterTheLeaseRanOutReportsTheLoss) {
  TcpProxy proxy(redis().port());
  Event lost;
  Options options;
  options.on_event = [&](const distlock::Event& event) {
    if (event.kind == EventKind::lost) lost.set(std::string(event.type));
  };
  auto client = connect_to(proxy.address(), "0s", options);
  std::optional<Lease> lease =
      client->acquire(spec("order", 300ms, renew(false)), key_for("ran-out"));
  ASSERT_TRUE(eventually([&] { return !lease->valid(); }, 30s));
  ASSERT_TRUE(eventually(
      [&] {
        return redis().cli({"EXISTS", "distlock:{order:" + key_for("ran-out") + "}"}) == "0";
      },
      30s))
      << "the server kept the lock past its ttl";
  proxy.freeze();
  lease.reset();
  proxy.cut_all();
  proxy.thaw();

  ASSERT_TRUE(lost.wait_for(30s)) << "the loss was reported as a release";
  EXPECT_EQ(lost.detail(), "order");
  client.reset();
  const auto lines = errors();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("order:" + key_for("ran-out")), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("no longer held"), std::string::npos) << lines[0];
}

// A release that cannot be delivered (its connection broke, and the server takes no new one)
// is reported once: the release_failed event, the counter, and one line naming the lock.
TEST_P(RedisScopeExitDelivery, ThatCannotBeDeliveredIsReportedOnce) {
  TcpProxy proxy(redis().port());
  Event failed;
  Options options;
  options.on_event = [&](const distlock::Event& event) {
    if (event.kind == EventKind::release_failed) failed.set(std::string(event.type));
  };
  auto client = connect_to(proxy.address(), "0s", options);
  std::optional<Lease> lease = client->acquire(long_lock(), key_for("undelivered"));
  proxy.freeze();
  lease.reset();
  proxy.refuse_connections();
  proxy.cut_all();
  proxy.thaw();

  ASSERT_TRUE(failed.wait_for(30s)) << "no release_failed event";
  EXPECT_EQ(client->stats().release_failures, 1u);
  EXPECT_EQ(redis().cli({"EXISTS", "distlock:{order:" + key_for("undelivered") + "}"}), "1");
  client.reset();
  const auto lines = errors();
  ASSERT_EQ(lines.size(), 1u) << lines.front();
  EXPECT_NE(lines[0].find("order:" + key_for("undelivered")), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("until its ttl"), std::string::npos) << lines[0];
}

// The server is away for a while (a restart, a failover) when the release is sent again: it
// is tried again until the server takes connections, within outage_limit.
TEST_P(RedisScopeExitDelivery, RidesThroughAnOutage) {
  TcpProxy proxy(redis().port());
  auto client = connect_to(proxy.address(), "60s");
  std::optional<Lease> lease = client->acquire(long_lock(), key_for("outage"));
  proxy.freeze();
  lease.reset();
  proxy.refuse_connections();
  proxy.cut_all();
  proxy.thaw();
  // Its first failure is logged once, as it begins to try again.
  const auto trying_again = [&] {
    for (const auto& line : log_.lines_at(LogLevel::warning))
      if (line.find(key_for("outage")) != std::string::npos &&
          line.find("outage_limit") != std::string::npos)
        return true;
    return false;
  };
  ASSERT_TRUE(eventually(trying_again, 30s)) << "the release was not tried again";
  proxy.accept_connections();

  expect_released(key_for("outage"));
  EXPECT_EQ(client->stats().release_failures, 0u);
  client.reset();
  EXPECT_TRUE(errors().empty()) << errors().front();
}

}  // namespace
}  // namespace distlock::testing
