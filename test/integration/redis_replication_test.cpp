// SPDX-License-Identifier: Apache-2.0
// Redis with replicas: redis+sentinel:// following a failover (the master SIGKILLed, or
// moved by SENTINEL FAILOVER), and ?min_replicas=N holding grants and renewals back until
// replicas have them. Real servers: a master, replicas and three sentinels per test.
#include <signal.h>

#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

#include "counter_file.h"
#include "integration_helpers.h"
#include "redis_sentinel_group.h"
#include "redis_server.h"
#include "shared_server_test.h"
#include "subprocess.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// One replica, so that the one promoted is the one that acknowledged the grant: with two, a
// loaded machine has seen the new master judged down in turn and the other replica promoted,
// which need not have the hold. A new replica comes after the failover, for the renewal's WAIT.
TEST(RedisSentinel, ALeaseSurvivesTheMastersDeathWhenAReplicaAcknowledgedIt) {
  SentinelGroup group(1);
  auto holder = Client::connect(group.url() + "?min_replicas=1");
  auto other = Client::connect(group.url());
  // Longer than a failover takes, so that renewals can wait for it.
  const auto lock_spec = spec("failover", 15s);
  Lease lease = holder->acquire(lock_spec, key_of("a"));
  const auto fence = lease.fence();

  group.kill_master_and_wait_for_failover(60s);
  const auto promoted_at = std::chrono::steady_clock::now();
  const auto renewals = holder->stats().renewals;
  group.add_replica();

  // The promoted replica has the lock: nobody else gets it.
  EXPECT_FALSE(other->try_acquire(lock_spec, key_of("a")).has_value());
  // A renewal after the failover succeeds: the new master has the hold, and the lease's
  // validity now counts from a request sent to it.
  EXPECT_TRUE(eventually([&] { return holder->stats().renewals != renewals || !lease.valid(); },
                         2 * lock_spec.ttl))
      << "neither a renewal nor the lease's end within twice its ttl";
  EXPECT_TRUE(lease.valid());
  EXPECT_GT(lease.valid_until(), promoted_at + lock_spec.ttl / 2);
  EXPECT_FALSE(other->try_acquire(lock_spec, key_of("a")).has_value());
  // The release reaches the new master: the hold was there to remove (else LockLost).
  EXPECT_NO_THROW(lease.release());
  auto next = other->try_acquire(lock_spec, key_of("a"));
  ASSERT_TRUE(next.has_value());
  EXPECT_GT(next->fence(), fence);
}

// 4 processes x 2 threads increment a counter under the lock while the master is SIGKILLed
// and its replica promoted: with min_replicas=1 no increment is lost and every holder's fence
// is larger than the one before (the workers check it; exit code 2 if not). One replica, so
// the one promoted is the one that acknowledged every grant: with two, Sentinel may promote
// the other (it goes by offsets it last heard of), and a grant can be given twice (seen in
// this test before; docs/guide.md says so). A new replica comes after the failover, since
// grants need one.
TEST(RedisSentinel, ACounterStaysExactAcrossTheMastersDeath) {
  SentinelGroup group(1);
  TempDirectory directory;
  const std::string counter = (directory.path() / "counter").string();
  write_counter_file(counter, {0, 0});
  constexpr int kProcesses = 4;
  constexpr int kThreads = 2;
  constexpr int kIterations = 40;
  std::vector<std::unique_ptr<Subprocess>> workers;
  for (int p = 0; p < kProcesses; ++p)
    workers.push_back(std::make_unique<Subprocess>(
        DISTLOCK_COUNTER_WORKER,
        std::vector<std::string>{"--through-failover", group.url() + "?min_replicas=1", counter,
                                 std::to_string(kIterations), std::to_string(kThreads)}));
  // The failover comes in the middle of the run. The whole run takes seconds: a minute without
  // a quarter of it means the workers are stuck or gone.
  ASSERT_TRUE(eventually(
      [&] { return read_counter_file(counter).count >= kProcesses * kThreads * kIterations / 4; },
      60s))
      << "the workers counted " << read_counter_file(counter).count << " in a minute";
  group.kill_master_and_wait_for_failover(60s);
  group.add_replica();
  for (auto& worker : workers) {
    const std::string output = worker->read_all(180s);
    const ExitStatus status = worker->wait(10s);
    EXPECT_TRUE(status.success()) << "worker " << worker->pid() << ": " << status.describe()
                                  << " (2: fence out of order), output: " << output;
    EXPECT_EQ(output, "done " + std::to_string(kThreads * kIterations) + "\n");
  }
  EXPECT_EQ(read_counter_file(counter).count,
            static_cast<std::uint64_t>(kProcesses * kThreads * kIterations));
}

TEST(RedisSentinel, AWaiterIsWokenByAReleaseOnTheNewMaster) {
  SentinelGroup group;
  auto holder = Client::connect(group.url());
  auto waiter = Client::connect(group.url());
  const auto lock_spec = spec("moved", 60s, wait(60s));
  Lease held = holder->acquire(lock_spec, key_of("b"));

  std::promise<std::uint64_t> acquired;
  std::thread waiting([&] {
    try {
      Lease lease = waiter->acquire(lock_spec, key_of("b"));
      acquired.set_value(lease.fence());
    } catch (...) {
      acquired.set_exception(std::current_exception());
    }
  });
  // The waiter is subscribed before the master moves. Not an ASSERT: the test goes on to the
  // release, which ends the waiter's thread, to be joined.
  EXPECT_TRUE(eventually([&] { return waiter->stats().waiting != 0; }))
      << "the waiter never started waiting";

  // The old master stays up, as a replica: the holder's pooled connection answers READONLY.
  group.fail_over_and_wait(60s);
  held.release();

  auto fence = acquired.get_future();
  const auto granted = fence.get();
  waiting.join();
  EXPECT_GT(granted, 0u);
  // Woken by the release (on the new master), not by the holder's 60 s ttl.
  EXPECT_GE(waiter->stats().woken_by_release, 1u);
  EXPECT_EQ(waiter->stats().woken_by_timeout, 0u);
}

// While the sentinels still name the dead master, every call fails and its error says why;
// the log says it once, not once per call (an operator's log at 100 calls a second).
TEST(RedisSentinel, AnOutageIsLoggedOnceNotOnEveryCall) {
  SentinelGroup group(1);
  std::mutex mutex;
  std::vector<std::string> warnings;
  // The logger captures these locals: it goes before they do, however the test ends.
  struct LoggerReset {
    ~LoggerReset() { set_logger({}); }
  } reset_logger;
  set_logger([&](LogLevel level, std::string_view message) {
    std::lock_guard lock(mutex);
    if (level == LogLevel::warning && contains(std::string(message), "found through the sentinels"))
      warnings.emplace_back(message);
  });
  {
    auto client = Client::connect(group.url());
    ASSERT_EQ(::kill(group.master().pid(), SIGKILL), 0);

    int failed = 0;
    const auto limit = std::chrono::steady_clock::now() + 60s;
    std::optional<Lease> lease;
    while (!lease && std::chrono::steady_clock::now() < limit) {
      try {
        lease = client->try_acquire(spec("outage", 30s), key_of("k"));
        ASSERT_TRUE(lease) << "nobody else holds the lock";
      } catch (const BackendUnavailable& error) {
        ++failed;
        EXPECT_TRUE(contains(error.what(), "outage:k")) << error.what();
      }
    }
    // The old master is dead: the grant is the promoted replica's.
    ASSERT_TRUE(lease) << "no grant within 60 s of the kill";
    // Calls failed until a replica was promoted (the sentinels wait 1 s to call it down).
    EXPECT_GE(failed, 2);
  }
  std::lock_guard lock(mutex);
  EXPECT_EQ(warnings.size(), 1u) << "first: " << (warnings.empty() ? "-" : warnings.front());
  // A try asks the sentinels too: its step deadline is its steps' own timeouts, not a wait that
  // ended before it began.
  for (const auto& warning : warnings) EXPECT_FALSE(contains(warning, "not asked")) << warning;
}

// The master gone and every sentinel frozen: asking the sentinels where the master went is a
// step of the acquisition like any other, cut by its deadline (before, each sentinel was
// awaited for its own command_timeout, one after another).
TEST(RedisSentinel, AskingFrozenSentinelsEndsByTheCallersDeadline) {
  SentinelGroup group(1);
  auto client = Client::connect(group.url() + "?connect_timeout=20s&command_timeout=20s");
  const auto lock_spec = spec("frozen-sentinels", 30s, wait(2s));
  client->acquire(lock_spec, key_of("k")).release();
  std::vector<std::unique_ptr<Frozen>> frozen;
  for (const RedisServer* sentinel : group.sentinels())
    frozen.push_back(std::make_unique<Frozen>(*sentinel));
  ASSERT_EQ(::kill(group.master().pid(), SIGKILL), 0);
  const auto started = std::chrono::steady_clock::now();
  try {
    (void)client->acquire(lock_spec, key_of("k"));
    ADD_FAILURE() << "granted with the master dead and the sentinels frozen";
  } catch (const BackendUnavailable& error) {
    EXPECT_TRUE(contains(error.what(), "frozen-sentinels:k")) << error.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
}

TEST(RedisSentinel, ANameNoSentinelMonitorsIsRefusedSayingSo) {
  SentinelGroup group(1);
  const std::string url =
      "redis+sentinel://127.0.0.1:" + std::to_string(group.sentinel_ports().front()) + "/nope";
  try {
    (void)Client::connect(url);
    ADD_FAILURE() << "connected to an unknown master";
  } catch (const BackendUnavailable& error) {
    EXPECT_EQ(error.server(), url);
    EXPECT_TRUE(contains(error.what(), "monitors no master named 'nope'")) << error.what();
  }
}

TEST(RedisSentinel, NoSentinelAnsweringIsBackendUnavailableNamingEach) {
  const auto first = free_loopback_port();
  const auto second = free_loopback_port();
  const std::string url = "redis+sentinel://127.0.0.1:" + std::to_string(first) +
                          ",127.0.0.1:" + std::to_string(second) + "/m";
  try {
    (void)Client::connect(url);
    ADD_FAILURE() << "connected without sentinels";
  } catch (const BackendUnavailable& error) {
    EXPECT_EQ(error.server(), url);
    EXPECT_TRUE(contains(error.what(), "sentinel 127.0.0.1:" + std::to_string(first)))
        << error.what();
    EXPECT_TRUE(contains(error.what(), "sentinel 127.0.0.1:" + std::to_string(second)))
        << error.what();
  }
}

TEST(RedisSentinel, AUrlWithoutAMasterNameIsAConfigError) {
  for (const std::string url :
       {"redis+sentinel://127.0.0.1:26379", "redis+sentinel://h:1/", "redis+sentinel:///m"}) {
    try {
      (void)Client::connect(url);
      ADD_FAILURE() << url << " was accepted";
    } catch (const ConfigError& error) {
      EXPECT_TRUE(contains(error.what(), "redis+sentinel://host:") ||
                  contains(error.what(), "sentinel"))
          << error.what();
    }
  }
}

// A master with one replica, not behind sentinels: min_replicas on redis://.
struct MasterAndReplica {
  static constexpr std::string_view kName = "a redis-server and its replica";
  // The replica syncs at once, not after the default 5 s.
  RedisServer master{{"--repl-diskless-sync-delay", "0"}};
  RedisServer replica{{"--replicaof", "127.0.0.1", std::to_string(master.port())}};
};

// One pair for the suite: each test locks names of its own and thaws the replica it froze.
class MinReplicas : public SharedServerTest<SuiteService<MasterAndReplica>> {
 protected:
  void SetUp() override {
    SharedServerTest::SetUp();
    if (server_ != nullptr) wait_until_in_sync();
  }

  RedisServer& master() { return server_->master; }
  RedisServer& replica() { return server_->replica; }

  // WAIT counts only replicas that have caught up.
  void wait_until_in_sync() { ASSERT_TRUE(wait_for_replicas(master(), 1, 30s)); }
};

TEST_F(MinReplicas, AGrantTheReplicaAcknowledgedIsOnTheReplica) {
  auto client = Client::connect(master().url() + "?min_replicas=1");
  Lease lease = client->acquire(spec("replicated", 10s), key_of("c"));
  // WAIT returned 1: the replica has the hold already, no waiting needed here.
  EXPECT_EQ(replica().cli({"HGET", "distlock:{replicated:c}", "id"}), lease.id());
}

// Replicas that do not acknowledge may yet (outage.h): an acquisition asks again within
// outage_limit, kept short here, then says why it failed.
TEST_F(MinReplicas, AGrantNoReplicaAcknowledgedIsWithdrawnAndSaysWhy) {
  auto client =
      Client::connect(master().url() + "?min_replicas=1&command_timeout=400ms&outage_limit=500ms");
  auto plain = Client::connect(master().url());
  const auto lock_spec = spec("unacknowledged", 10s);
  {
    Frozen frozen(replica());
    try {
      (void)client->acquire(lock_spec, key_of("d"));
      ADD_FAILURE() << "granted without the replica";
    } catch (const BackendUnavailable& error) {
      EXPECT_EQ(error.lock(), "unacknowledged:d");
      EXPECT_EQ(error.server(), master().url());  // no query: its values may be secrets
      EXPECT_TRUE(contains(error.what(), "0 of the 1 replicas required (min_replicas)"))
          << error.what();
      EXPECT_TRUE(contains(error.what(), "withdrawn")) << error.what();
    }
    // Withdrawn: the lock is free.
    EXPECT_TRUE(plain->try_acquire(lock_spec, key_of("d")).has_value());
  }
  wait_until_in_sync();
  // A timeout a loaded machine does not miss: WAIT gets half of it.
  auto patient = Client::connect(master().url() + "?min_replicas=1&command_timeout=2s");
  EXPECT_NO_THROW((void)patient->acquire(lock_spec, key_of("d")));
}

// A fair release grants the lock to the waiter on the master alone: with min_replicas the
// waiter asks again and waits for the replica, rather than taking the release's word for it.
TEST_F(MinReplicas, AFairWaiterGrantedByAReleaseWaitsForTheReplicaToo) {
  const auto fair_lock = spec("handed", 10s, distlock::fair, wait(20s));
  auto plain = Client::connect(master().url());
  Lease held = plain->acquire(fair_lock, key_of("e"));
  auto waiting = Client::connect(master().url() + "?min_replicas=1&command_timeout=400ms");
  // Its grant is asked for again while its wait lasts: a short one.
  std::future<Lease> waiter = std::async(std::launch::async, [&] {
    return waiting->acquire(spec("handed", 10s, distlock::fair, wait(3s)), key_of("e"));
  });
  ASSERT_TRUE(eventually([&] { return waiting->stats().waiting == 1; }));
  {
    Frozen frozen(replica());
    held.release();
    ASSERT_EQ(waiter.wait_for(20s), std::future_status::ready);
    try {
      (void)waiter.get();
      ADD_FAILURE() << "granted without the replica";
    } catch (const BackendUnavailable& error) {
      EXPECT_TRUE(contains(error.what(), "0 of the 1 replicas required (min_replicas)"))
          << error.what();
    }
  }
}

TEST_F(MinReplicas, MoreReplicasThanThereAreIsRefusedEveryTime) {
  auto client =
      Client::connect(master().url() + "?min_replicas=2&command_timeout=2s&outage_limit=500ms");
  try {
    (void)client->acquire(spec("two", 10s), key_of("e"));
    ADD_FAILURE() << "granted with one replica of two";
  } catch (const BackendUnavailable& error) {
    EXPECT_TRUE(contains(error.what(), "1 of the 2 replicas required")) << error.what();
  }
}

TEST_F(MinReplicas, ALeaseWhoseRenewalsNoReplicaAcknowledgesIsLost) {
  auto client = Client::connect(master().url() + "?min_replicas=1&command_timeout=2s");
  Lease lease = client->acquire(spec("renewed", 1500ms), key_of("f"));
  std::promise<std::string> lost;
  lease.on_lost([&](const LockLost& error) { lost.set_value(error.what()); });
  Frozen frozen(replica());
  const std::string what = lost.get_future().get();
  EXPECT_FALSE(lease.valid());
  EXPECT_GE(client->stats().renewal_failures, 1u);
  // Said once, in the one shape every error has.
  EXPECT_EQ(what.find("distlock: lock 'renewed:f' on " + client->server() + ": lost: "), 0u)
      << what;
  EXPECT_EQ(what.find("distlock:", 1), std::string::npos) << what;
}

TEST(MinReplicasUrl, ANonNumberIsAConfigError) {
  try {
    (void)Client::connect("redis://127.0.0.1:1?min_replicas=one");
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_TRUE(contains(error.what(), "min_replicas")) << error.what();
  }
}

}  // namespace
}  // namespace distlock::testing
