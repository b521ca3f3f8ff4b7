// SPDX-License-Identifier: Apache-2.0
// Redlock over three independent redis-servers (redis+redlock://): a majority grants, a
// minority does not, the validity budget is spent by slow masters, and what a fence means
// when each master counts on its own.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

#include "holder_thread.h"
#include "integration_helpers.h"
#include "redis_server.h"
#include "tcp_proxy.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

class Redlock : public ::testing::Test {
 protected:
  Redlock() {
    for (int i = 0; i < 3; ++i) masters_.push_back(std::make_unique<RedisServer>());
  }

  // Short timeouts by default: a stopped master costs each round this long.
  std::string url(std::string_view timeouts = "connect_timeout=300ms&command_timeout=300ms") const {
    std::string url = "redis+redlock://";
    for (std::size_t i = 0; i < masters_.size(); ++i)
      url += (i == 0 ? "127.0.0.1:" : ",127.0.0.1:") + std::to_string(ports_[i]);
    return url + "?" + std::string(timeouts);
  }
  void SetUp() override {
    for (const auto& master : masters_) ports_.push_back(master->port());
  }
  bool held_on(std::size_t master, const std::string& hash) const {
    return masters_[master]->cli({"EXISTS", hash}) == "1";
  }

  std::vector<std::unique_ptr<RedisServer>> masters_;
  std::vector<std::uint16_t> ports_;
};

TEST_F(Redlock, OneMasterDownOfThreeStillGrantsOnTheOtherTwo) {
  auto client = Client::connect(url());
  masters_[1].reset();
  Lease lease = client->acquire(spec("quorum", 10s, wait(5s)), key_of("a"));
  EXPECT_TRUE(lease.valid());
  EXPECT_TRUE(held_on(0, "distlock:{quorum:a}"));
  EXPECT_TRUE(held_on(2, "distlock:{quorum:a}"));
  lease.release();
  EXPECT_FALSE(held_on(0, "distlock:{quorum:a}"));
  EXPECT_FALSE(held_on(2, "distlock:{quorum:a}"));
}

// A reentry shares the fence of the lease it re-enters, even when its round reaches a master
// the outer round missed (paused then), whose own hold has a later fence (a fence is at least
// the server's time in microseconds): a round's fence is the highest a master gave.
TEST_F(Redlock, AReentryKeepsTheFenceOfTheLeaseItReenters) {
  auto client = Client::connect(url());
  const auto lock_spec = spec("reentry", 30s, wait(5s));
  // Scripts on the third master wait out the pause: the outer round's request there times out.
  ASSERT_EQ(masters_[2]->cli({"CLIENT", "PAUSE", "3000", "WRITE"}), "OK");
  Lease outer = client->acquire(lock_spec, key_of("a"));
  ASSERT_EQ(masters_[2]->cli({"CLIENT", "UNPAUSE"}), "OK");

  Lease inner = client->acquire(lock_spec, key_of("a"));
  EXPECT_EQ(inner.fence(), outer.fence());
  EXPECT_TRUE(held_on(2, "distlock:{reentry:a}")) << "the reentry's round missed the third master";
}

// The first master's death must not leave waiters listening to it: they hear the release from
// a master that answers, not from the holder's ttl running out (seen in the reliability
// checker's redis-redlock.kill-leader: waiters timed out while the victim re-took the lock).
TEST_F(Redlock, AWaiterIsWokenByTheReleaseWhenTheFirstMasterIsDead) {
  auto holder = Client::connect(url());
  auto waiter = Client::connect(url());
  const auto lock_spec = spec("herald", 60s, wait(30s));
  // Both clients have used the first master before it dies.
  holder->acquire(lock_spec, key_of("c")).release();
  waiter->acquire(lock_spec, key_of("c")).release();
  masters_[0].reset();
  Lease held = holder->acquire(lock_spec, key_of("c"));

  Holder waiting(*waiter, lock_spec, "c");
  ASSERT_TRUE(eventually([&] { return waiter->stats().waiting == 1; }));
  held.release();
  (void)waiting.fence();
  // Woken by the release: the holder's ttl (60 s) would have outlasted the wait (30 s).
  EXPECT_GE(waiter->stats().woken_by_release, 1u);
  EXPECT_EQ(waiter->stats().woken_by_timeout, 0u);
}

// The same when the first master dies while the waiter listens to it: the lost subscription
// wakes the waiter, which listens again through a master that answers.
TEST_F(Redlock, AWaiterWhoseMasterDiesListensThroughAnother) {
  auto holder = Client::connect(url());
  auto waiter = Client::connect(url());
  const auto lock_spec = spec("herald", 60s, wait(30s));
  Lease held = holder->acquire(lock_spec, key_of("d"));

  Holder waiting(*waiter, lock_spec, "d");
  ASSERT_TRUE(eventually([&] { return waiter->stats().waiting == 1; }));
  masters_[0].reset();
  // Subscribed again elsewhere: a timeout counted for the lost subscription, then waiting again.
  // Without that, the waiter would sleep through the release until the holder's ttl (60 s).
  ASSERT_TRUE(eventually([&] { return waiter->stats().woken_by_timeout >= 1; }));
  ASSERT_TRUE(eventually([&] { return waiter->stats().waiting == 1; }));
  const auto woken_by_release = waiter->stats().woken_by_release;
  held.release();
  (void)waiting.fence();
  EXPECT_GT(waiter->stats().woken_by_release, woken_by_release);
}

// A round wins on a majority: a master that another client held the lock on then never has the
// lease. Released with one of the masters that granted it down, the lease's release counts that
// master's "not held" as the lock free there, not as a hold lost: released, not unavailable.
TEST_F(Redlock, ALeaseABareMajorityGrantedIsReleasedWithOneOfThoseMastersDown) {
  auto holder = Client::connect(url());
  auto third_only = Client::connect("redis://127.0.0.1:" + std::to_string(ports_[2]));
  Lease on_the_third = third_only->acquire(spec("bare", 60s), key_of("e"));
  Lease held = holder->acquire(spec("bare", 60s), key_of("e"));
  on_the_third.release();
  masters_[0].reset();
  EXPECT_NO_THROW(held.release());
  EXPECT_FALSE(held_on(1, "distlock:{bare:e}"));
}

TEST_F(Redlock, TwoMastersDownIsBackendUnavailableNamingThem) {
  auto client = Client::connect(url());
  masters_[0].reset();
  masters_[2].reset();
  try {
    (void)client->acquire(spec("minority", 10s, wait(5s)), key_of("b"));
    ADD_FAILURE() << "granted by one master of three";
  } catch (const BackendUnavailable& error) {
    EXPECT_EQ(error.lock(), "minority:b");
    EXPECT_EQ(error.server(), client->server());
    EXPECT_TRUE(contains(error.what(), "only 1 of 3 masters answered")) << error.what();
    EXPECT_TRUE(contains(error.what(), "redis://127.0.0.1:" + std::to_string(ports_[0])))
        << error.what();
    EXPECT_TRUE(contains(error.what(), "redis://127.0.0.1:" + std::to_string(ports_[2])))
        << error.what();
  }
  // The one master that answered kept nothing.
  EXPECT_FALSE(held_on(1, "distlock:{minority:b}"));
}

TEST_F(Redlock, ConnectingWithoutAMajorityIsBackendUnavailable) {
  masters_[0].reset();
  masters_[1].reset();
  try {
    (void)Client::connect(url());
    ADD_FAILURE() << "connected to one master of three";
  } catch (const BackendUnavailable& error) {
    EXPECT_TRUE(contains(error.what(), "only 1 of 3 masters could be reached")) << error.what();
  }
}

TEST(RedlockUrl, FewerThanThreeMastersIsAConfigError) {
  for (const std::string url : {"redis+redlock://127.0.0.1:1", "redis+redlock://a:1,b:2"}) {
    try {
      (void)Client::connect(url);
      ADD_FAILURE() << url << " was accepted";
    } catch (const ConfigError& error) {
      EXPECT_TRUE(contains(error.what(), "at least 3 independent masters")) << error.what();
    }
  }
}

// Every master is asked at once: one that does not answer costs a round nothing while the others
// make a majority, even with a ttl shorter than the frozen master's command timeout.
TEST_F(Redlock, AFrozenMasterCostsARoundNothing) {
  auto client = Client::connect(url());
  Frozen slow(*masters_[1]);
  auto lease = client->try_acquire(spec("budget", 200ms), key_of("c"));
  ASSERT_TRUE(lease.has_value());
  EXPECT_TRUE(held_on(0, "distlock:{budget:c}"));
  EXPECT_TRUE(held_on(2, "distlock:{budget:c}"));
}

// A round whose majority would answer after the ttl (less the drift allowance) has run out
// grants nothing: by then the first master's hold may have expired. It ends at that point, and
// what the late masters grant once they answer is given back, well before their ttl.
TEST_F(Redlock, ARoundSlowerThanTheTtlGrantsNothingAndGivesBackWhatCameLate) {
  auto client = Client::connect(url("connect_timeout=300ms&command_timeout=10s"));
  const std::string hash = "distlock:{budget:d}";
  std::optional<Frozen> slow_first(std::in_place, *masters_[0]);
  std::optional<Frozen> slow_second(std::in_place, *masters_[1]);
  // The masters' slowness, not a wait for an event: they answer after three seconds.
  std::thread thaw([&] {
    std::this_thread::sleep_for(3s);
    slow_first.reset();
    slow_second.reset();
  });
  const auto started = Clock::now();
  try {
    (void)client->try_acquire(spec("budget", 2s), key_of("d"));
    ADD_FAILURE() << "granted by a round slower than the ttl";
  } catch (const BackendUnavailable& error) {
    EXPECT_TRUE(contains(error.what(), "only 1 of 3 masters answered")) << error.what();
  }
  EXPECT_LT(Clock::now() - started, 2s) << "the round outlasted its validity budget";
  thaw.join();
  // Granted at the thaw with a 2 s ttl, the late holds would last until 5 s.
  EXPECT_TRUE(eventually([&] { return !held_on(0, hash) && !held_on(1, hash); }, 1500ms))
      << "the late masters' grants were not given back";
  EXPECT_FALSE(held_on(2, hash)) << "the round's grant was not given back";
}

// One master of three frozen while a lease of 3 s is held for 10 s, with a command timeout as
// long as the ttl: each renewal round goes on as soon as the other two have renewed, and so does
// the release, which frees the lock on them. The lease is valid throughout, and nothing is
// reported lost.
TEST_F(Redlock, ALeaseOutlivesAFrozenMasterAndItsReleaseFreesTheLock) {
  auto client = Client::connect(url("connect_timeout=300ms&command_timeout=3s"));
  Lease lease = client->acquire(spec("frozen", 3s), key_of("e"));
  {
    Frozen frozen(*masters_[1]);
    const auto held_until = Clock::now() + 10s;
    while (Clock::now() < held_until) {
      ASSERT_TRUE(lease.valid()) << "the lease ran out with two masters of three answering";
      // Only paces the checks: the lease must stay valid at every one of them.
      std::this_thread::sleep_for(20ms);
    }
    EXPECT_NO_THROW(lease.release());
    EXPECT_FALSE(held_on(0, "distlock:{frozen:e}"));
    EXPECT_FALSE(held_on(2, "distlock:{frozen:e}"));
  }
  EXPECT_EQ(client->stats().lost, 0u);
  EXPECT_GE(client->stats().renewals, 5u);
}

// Any two majorities share a master, and fences are at least the master's clock in
// microseconds: while the masters' clocks agree, a later holder's fence is larger.
TEST_F(Redlock, LaterHoldersGetLargerFencesFromDifferentMajorities) {
  auto client = Client::connect(url());
  const auto lock_spec = spec("order", 10s, wait(5s));
  std::uint64_t first = 0;
  std::uint64_t second = 0;
  {
    Lease lease = client->acquire(lock_spec, key_of("d"));
    first = lease.fence();
  }
  {
    Frozen away(*masters_[0]);
    Lease lease = client->acquire(lock_spec, key_of("d"));  // masters 1 and 2
    second = lease.fence();
  }
  EXPECT_GT(second, first);
  Frozen away(*masters_[2]);
  Lease third = client->acquire(lock_spec, key_of("d"));  // masters 0 and 1
  EXPECT_GT(third.fence(), second);
}

// The limit of that rule, shown: a master whose counter (or clock) ran a minute ahead hands
// out a fence that a later majority without it does not reach. A resource that compares
// fences would then refuse the later, rightful holder; docs/guide.md says so.
TEST_F(Redlock, AMasterAheadOfTheOthersOrdersFencesBackwards) {
  auto client = Client::connect(url());
  const auto lock_spec = spec("skew", 10s, wait(5s));
  std::istringstream time(masters_[0]->cli({"TIME"}));
  long long seconds = 0;
  long long micros = 0;
  time >> seconds >> micros;
  const long long ahead = (seconds + 60) * 1000000 + micros;
  masters_[0]->cli({"SET", "distlock:{skew:e}:fence", std::to_string(ahead)});
  std::uint64_t earlier = 0;
  {
    // A round goes on once a majority granted: the majority is the master ahead and another.
    Frozen away(*masters_[2]);
    Lease lease = client->acquire(lock_spec, key_of("e"));
    earlier = lease.fence();
  }
  EXPECT_GT(earlier, static_cast<std::uint64_t>(ahead));
  Frozen away(*masters_[0]);
  Lease later = client->acquire(lock_spec, key_of("e"));  // masters 1 and 2
  EXPECT_LT(later.fence(), earlier);
}

// A release reaches the masters one after another: a waiter woken by a kept release
// (hold_at_least) can find a master that has not heard it yet, still held for the holder's
// ttl. It sleeps until a majority is free (the kept time), not until that master's hold ends.
TEST_F(Redlock, AWaiterWokenByAKeptReleaseSleepsUntilAMajorityIsFree) {
  TcpProxy holders_third(ports_[2]);
  auto holder =
      Client::connect("redis+redlock://127.0.0.1:" + std::to_string(ports_[0]) +
                      ",127.0.0.1:" + std::to_string(ports_[1]) + "," + holders_third.address() +
                      "?connect_timeout=300ms&command_timeout=300ms");
  auto waiter = Client::connect(url());
  Lease held = holder->acquire(spec("kept", 30s, hold_at_least(1500ms)), key_of("f"));
  Holder waiting(*waiter, spec("kept", 30s, wait(30s)), "f");
  ASSERT_TRUE(eventually([&] { return waiter->stats().waiting == 1; }));
  holders_third.freeze();
  held.release();
  EXPECT_TRUE(waiting.granted_within(6s)) << "the waiter slept until the third master's hold ends";
  EXPECT_TRUE(held_on(2, "distlock:{kept:f}")) << "the third master heard the release";
  holders_third.thaw();
}

}  // namespace
}  // namespace distlock::testing
