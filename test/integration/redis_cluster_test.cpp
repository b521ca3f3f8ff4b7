// SPDX-License-Identifier: Apache-2.0
// Redis Cluster (redis+cluster://) against a private cluster of three masters with a
// replica each: locks live on their slot's master, and a slot moved to another master is
// followed, with a lock held on it and a waiter waiting for it.
#include <chrono>
#include <cstdint>
#include <exception>
#include <future>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

#include "async_outcome.h"
#include "integration_helpers.h"
#include "redis_cluster.h"
#include "shared_server_test.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// One cluster for the suite: each test locks names of its own, and a slot an earlier test
// moved is only served by another master (another_master() asks where a slot is now).
class RedisClusterTest : public SharedServerTest<SuiteRedisCluster> {
 protected:
  RedisCluster& cluster() { return *server_; }

  // A master other than the one serving `slot` now.
  RedisServer& another_master(int slot) {
    RedisServer& current = cluster().master_of(slot);
    for (int candidate = 0; candidate < 16384; candidate += 1000) {
      RedisServer& master = cluster().master_of(candidate);
      if (&master != &current) return master;
    }
    throw std::runtime_error("one master serves every slot");
  }
};

// A cluster of its own: the test kills one of its masters.
class RedisClusterFailover : public ::testing::Test {
 protected:
  RedisCluster cluster_;
};

TEST_F(RedisClusterTest, EachLockLivesOnTheMasterOfItsSlot) {
  auto client = Client::connect(cluster().url());
  for (const std::string key : {"a", "b", "c", "d", "e", "f"}) {
    Lease lease = client->acquire(spec("placed", 10s), key_of(key));
    const std::string hash = "distlock:{placed:" + key + "}";
    RedisServer& master = cluster().master_of(cluster().key_slot(hash));
    EXPECT_EQ(master.cli({"HGET", hash, "id"}), lease.id()) << key;
    EXPECT_EQ(cluster().key_slot(hash + ":fence"), cluster().key_slot(hash));
  }
}

// A waiter listens on the lock's shard (SSUBSCRIBE on its slot's master), not on a channel
// every node would carry; the release wakes it.
TEST_F(RedisClusterTest, WaitersListenOnTheLocksShard) {
  auto holder = Client::connect(cluster().url());
  auto waiter = Client::connect(cluster().url());
  const std::string channel = "distlock:{shard:a}:released";
  RedisServer& master = cluster().master_of(cluster().key_slot(channel));
  Lease held = holder->acquire(spec("shard", 30s), key_of("a"));
  std::promise<void> granted;
  std::thread waiting([&] {
    try {
      (void)waiter->acquire(spec("shard", 30s, wait(30s)), key_of("a"));
      granted.set_value();
    } catch (...) {
      granted.set_exception(std::current_exception());
    }
  });
  // Not an ASSERT: the test goes on to the release, which ends the waiter's thread.
  EXPECT_TRUE(eventually([&] { return waiter->stats().waiting != 0; }))
      << "the waiter never started waiting";
  EXPECT_EQ(master.cli({"PUBSUB", "SHARDNUMSUB", channel}), channel + "\n1");
  EXPECT_EQ(master.cli({"PUBSUB", "NUMSUB", channel}), channel + "\n0");
  held.release();
  auto done = granted.get_future();
  ASSERT_EQ(done.wait_for(30s), std::future_status::ready);
  EXPECT_NO_THROW(done.get());
  waiting.join();
  EXPECT_GE(waiter->stats().woken_by_release, 1u);
  EXPECT_EQ(waiter->stats().woken_by_timeout, 0u);
}

TEST_F(RedisClusterTest, AMovedSlotIsFollowedWithItsFence) {
  auto client = Client::connect(cluster().url());
  const std::string hash = "distlock:{moving:a}";
  const int slot = cluster().key_slot(hash);
  std::uint64_t before = 0;
  {
    Lease lease = client->acquire(spec("moving", 10s), key_of("a"));
    before = lease.fence();
  }
  RedisServer& target = another_master(slot);
  cluster().move_slot(slot, target);
  // The client's map still names the old master: its MOVED reply is followed.
  Lease lease = client->acquire(spec("moving", 10s, wait(5s)), key_of("a"));
  EXPECT_GT(lease.fence(), before);
  EXPECT_EQ(target.cli({"HGET", hash, "id"}), lease.id());
}

// Between MIGRATE and the slot's handover the old master answers ASK for keys it no longer
// has: a held lock is released on the importing master, after ASKING. A new acquisition then
// finds one key there and none here (TRYAGAIN) and waits for the handover.
TEST_F(RedisClusterTest, ALockReleasedWhileItsSlotMigratesIsFreeAfterwards) {
  auto holder = Client::connect(cluster().url());
  auto taker = Client::connect(cluster().url());
  const std::string hash = "distlock:{migrating:a}";
  const int slot = cluster().key_slot(hash);
  Lease held = holder->acquire(spec("migrating", 10s), key_of("a"));
  const auto fence = held.fence();

  std::promise<std::uint64_t> taken;
  std::thread taking;
  RedisServer& target = another_master(slot);
  cluster().move_slot(slot, target, [&] {
    EXPECT_NO_THROW(held.release()) << "the release did not reach the importing master";
    taking = std::thread([&] {
      try {
        taken.set_value(taker->acquire(spec("migrating", 10s, wait(30s)), key_of("a")).fence());
      } catch (...) {
        taken.set_exception(std::current_exception());
      }
    });
  });
  auto result = taken.get_future();
  ASSERT_EQ(result.wait_for(30s), std::future_status::ready) << "the taker hangs";
  EXPECT_GT(result.get(), fence);
  taking.join();
}

TEST_F(RedisClusterTest, AHeldLockKeepsItsHolderAndWaiterAcrossASlotMove) {
  auto holder = Client::connect(cluster().url());
  auto waiter = Client::connect(cluster().url());
  const std::string hash = "distlock:{held:a}";
  const int slot = cluster().key_slot(hash);
  Lease held = holder->acquire(spec("held", 3s), key_of("a"));

  std::promise<std::uint64_t> granted;
  std::thread waiting([&] {
    try {
      granted.set_value(waiter->acquire(spec("held", 3s, wait(30s)), key_of("a")).fence());
    } catch (...) {
      granted.set_exception(std::current_exception());
    }
  });
  // Not an ASSERT: the test goes on to the release, which ends the waiter's thread.
  EXPECT_TRUE(eventually([&] { return waiter->stats().waiting != 0; }))
      << "the waiter never started waiting";

  RedisServer& target = another_master(slot);
  cluster().move_slot(slot, target);
  // A renewal after the move went to the new master: the holder still holds.
  const auto renewals = holder->stats().renewals;
  EXPECT_TRUE(eventually([&] { return holder->stats().renewals != renewals || !held.valid(); }, 6s))
      << "neither a renewal nor the lease's end within twice its ttl";
  EXPECT_TRUE(held.valid()) << "the holder lost its lock in the move";
  EXPECT_EQ(target.cli({"HGET", hash, "id"}), held.id());

  const auto fence = held.fence();
  EXPECT_NO_THROW(held.release());
  auto result = granted.get_future();
  ASSERT_EQ(result.wait_for(30s), std::future_status::ready) << "the waiter hangs";
  EXPECT_GT(result.get(), fence);
  waiting.join();
}

// An acquisition waiting without a thread follows its lock's slot to the new master too: the
// attempt after the move is redirected (MOVED), and the waiter goes on there until the release.
TEST_F(RedisClusterTest, AnAsyncWaiterFollowsTheSlotToItsNewMaster) {
  auto holder = Client::connect(cluster().url());
  auto waiter = Client::connect(cluster().url());
  const std::string hash = "distlock:{async-moved:a}";
  const int slot = cluster().key_slot(hash);
  Lease held = holder->acquire(spec("async-moved", 2s), key_of("a"));
  std::promise<std::uint64_t> granted;
  waiter->acquire_async(spec("async-moved", 30s, wait(30s)), key_of("a"),
                        [&](std::exception_ptr error, Lease lease) {
                          if (error)
                            granted.set_exception(error);
                          else
                            granted.set_value(lease.fence());
                        });
  EXPECT_TRUE(eventually([&] { return waiter->stats().waiting != 0; }))
      << "the waiter never started waiting";
  RedisServer& target = another_master(slot);
  cluster().move_slot(slot, target);
  const auto fence = held.fence();
  EXPECT_NO_THROW(held.release());
  auto result = granted.get_future();
  ASSERT_EQ(result.wait_for(30s), std::future_status::ready) << "the waiter hangs";
  EXPECT_GT(result.get(), fence);
}

// A held lock whose slot migrates for longer than its ttl keeps its holder: each renewal the
// old master answers with ASK (the lock's keys went ahead) is made again on the importing one.
TEST_F(RedisClusterTest, ALeaseOutlivesAMigrationLongerThanItsTtl) {
  auto holder = Client::connect(cluster().url());
  const int slot = cluster().key_slot("distlock:{long-held:a}");
  Lease held = holder->acquire(spec("long-held", 1s), key_of("a"));
  cluster().move_slot(slot, another_master(slot), [&] {
    EXPECT_FALSE(eventually([&] { return !held.valid(); }, 3s))
        << "the lease was lost while its slot migrated";
  });
  EXPECT_TRUE(held.valid());
  EXPECT_NO_THROW(held.release());
}

// A migration that lasts (here a second between the keys' move and the slot's handover) is
// waited out by an asynchronous waiter that began during it: each of its tries is sent to the
// old master, redirected (ASK) to the importing one, and found busy there, which is no slot
// moving back and forth however often it repeats.
TEST_F(RedisClusterTest, AnAsyncWaiterWaitsOutALongMigration) {
  auto holder = Client::connect(cluster().url());
  auto waiter = Client::connect(cluster().url());
  const int slot = cluster().key_slot("distlock:{long-migration:a}");
  Lease held = holder->acquire(spec("long-migration", 30s), key_of("a"));
  const auto fence = held.fence();
  std::future<Outcome> waited;
  cluster().move_slot(slot, another_master(slot), [&] {
    waited = start_acquisition(*waiter, spec("long-migration", 30s, wait(30s)), "a");
    EXPECT_EQ(waited.wait_for(1s), std::future_status::timeout)
        << "the waiter ended while the slot migrated";
  });
  held.release();
  Outcome outcome = outcome_of(waited);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  EXPECT_GT(outcome.lease.fence(), fence);
}

// The master of a held lock's slot dies once its replica has the grant; the replica takes
// over. The holder keeps the lock, and others reach the new master. (min_replicas=1 would
// make the grant wait for the replica too, but then every renewal on the promoted master,
// which has no replica left, would fail.)
TEST_F(RedisClusterFailover, AMastersDeathIsFollowedToThePromotedReplica) {
  auto holder = Client::connect(cluster_.url());
  auto other = Client::connect(cluster_.url());
  const std::string hash = "distlock:{promoted:a}";
  const int slot = cluster_.key_slot(hash);
  // Longer than the cluster takes to promote (node timeout 2 s).
  const auto lock_spec = spec("promoted", 15s);
  Lease held = holder->acquire(lock_spec, key_of("a"));
  const auto fence = held.fence();
  ASSERT_TRUE(wait_for_replicas(cluster_.master_of(slot), 1, 30s));

  RedisServer& promoted = cluster_.kill_master_of(slot, 60s);
  const auto promoted_at = std::chrono::steady_clock::now();
  EXPECT_EQ(promoted.cli({"HGET", hash, "id"}), held.id());
  EXPECT_FALSE(other->try_acquire(lock_spec, key_of("a")).has_value());

  const auto renewals = holder->stats().renewals;
  EXPECT_TRUE(eventually([&] { return holder->stats().renewals != renewals || !held.valid(); },
                         2 * lock_spec.ttl))
      << "neither a renewal nor the lease's end within twice its ttl";
  EXPECT_TRUE(held.valid());
  EXPECT_GT(held.valid_until(), promoted_at + lock_spec.ttl / 2);
  EXPECT_NO_THROW(held.release());
  auto next = other->try_acquire(lock_spec, key_of("a"));
  ASSERT_TRUE(next.has_value());
  EXPECT_GT(next->fence(), fence);
}

TEST(RedisClusterUrl, ASeedThatIsNoClusterNodeSaysSo) {
  RedisServer plain;
  const std::string url = "redis+cluster://127.0.0.1:" + std::to_string(plain.port());
  try {
    (void)Client::connect(url);
    ADD_FAILURE() << "a plain server was taken for a cluster";
  } catch (const BackendUnavailable& error) {
    EXPECT_EQ(error.server(), url);
    EXPECT_TRUE(contains(error.what(), "is not a cluster node")) << error.what();
    EXPECT_TRUE(contains(error.what(), "redis://")) << error.what();
  }
}

TEST(RedisClusterUrl, ADatabaseIsAConfigError) {
  try {
    (void)Client::connect("redis+cluster://127.0.0.1:1/3");
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_TRUE(contains(error.what(), "only database 0")) << error.what();
  }
}

}  // namespace
}  // namespace distlock::testing
