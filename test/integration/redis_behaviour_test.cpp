// SPDX-License-Identifier: Apache-2.0
// Behaviours that only the Redis backend has, or that only Redis lets a test provoke:
// a holder process killed outright, a lock deleted behind the holder's back, the key layout.
//
// Key layout for lock type T and key K (escaped): hash distlock:{T:K}, fence counter
// distlock:{T:K}:fence, release channel distlock:{T:K}:released.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "integration_helpers.h"
#include "redis_server.h"
#include "redis_suite.h"
#include "subprocess.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

using RedisBehaviour = RedisSuiteTest;

TEST_F(RedisBehaviour, LockOfAKilledHolderIsFreedWithinItsTtl) {
  constexpr std::string_view type = "killed";
  const std::string key = unique_name("holder");
  Subprocess holder(DISTLOCK_COUNTER_WORKER,
                    {"--hold", redis().url(), std::string(type), key, "1000"});
  const auto line = holder.read_line(30s);
  ASSERT_TRUE(line.has_value()) << "the holder exited: " << holder.wait(10s).describe();
  ASSERT_EQ(line->rfind("acquired ", 0), 0u) << *line;
  const std::uint64_t holder_fence = std::stoull(line->substr(9));

  auto client = connect();
  const auto lock_spec = spec(type, 1s);
  EXPECT_FALSE(client->try_acquire(lock_spec, key).has_value()) << "the holder does not hold it";

  holder.kill(SIGKILL);
  const ExitStatus status = holder.wait(10s);
  EXPECT_TRUE(status.signaled && status.signal == SIGKILL) << status.describe();

  // Nobody releases it and nobody renews it: it must run out within its ttl.
  std::optional<Lease> lease;
  ASSERT_NO_THROW(lease.emplace(client->acquire(spec(type, 1s, wait(1s + 5s)), key)));
  EXPECT_TRUE(lease->valid());
  EXPECT_GT(lease->fence(), holder_fence);
}

TEST_F(RedisBehaviour, NonOwnerCannotTakeOrFreeAHeldLock) {
  // The API gives a non-owner no handle to release someone else's lock with: a Lease comes
  // only from a successful acquisition. What a second client can do is try to take it; that
  // must leave the holder's hash untouched. (release.lua's owner check itself is covered by
  // the Redis backend's own checks.)
  const std::string key = unique_name("nonowner");
  const std::string hash = "distlock:{owned:" + key + "}";
  auto a = connect();
  auto b = connect();
  const auto lock_spec = spec("owned", 30s);

  Lease held = a->acquire(lock_spec, key);
  const std::string owner = redis().cli({"HGET", hash, "owner"});
  ASSERT_FALSE(owner.empty()) << "no owner field in " << hash;

  EXPECT_FALSE(b->try_acquire(lock_spec, key).has_value());
  EXPECT_THROW(b->acquire(spec("owned", 30s, wait(200ms)), key), LockTimeout);
  EXPECT_EQ(redis().cli({"HGET", hash, "owner"}), owner);
  EXPECT_EQ(redis().cli({"EXISTS", hash}), "1");
  EXPECT_TRUE(held.valid());

  held.release();
  EXPECT_EQ(redis().cli({"EXISTS", hash}), "0");
  auto taken = b->try_acquire(lock_spec, key);
  ASSERT_TRUE(taken.has_value());
  EXPECT_NE(redis().cli({"HGET", hash, "owner"}), owner) << "another client is another owner";
}

// What an acquisition whose reply was lost leaves behind (the script ran, the connection
// broke, the caller saw BackendUnavailable): a hold under the thread's owner that no lease
// stands for. The thread's next acquisition takes it over with a new fence, rather than
// reentering it and handing out the orphan's fence a second time.
TEST_F(RedisBehaviour, AnOrphanedHoldOfTheSameThreadIsTakenOverNotReentered) {
  auto client = connect();
  std::string owner;
  std::uint64_t fence = 0;
  {
    Lease lease = client->acquire(spec("orphan", 10s), "1");
    owner = redis().cli({"HGET", "distlock:{orphan:1}", "owner"});
    fence = lease.fence();
  }
  redis().cli({"HSET", "distlock:{orphan:1}", "owner", owner, "count", "1", "fence",
               std::to_string(fence), "id", "lost-reply", "h:lost-reply", "1"});
  redis().cli({"PEXPIRE", "distlock:{orphan:1}", "30000"});

  Lease lease = client->acquire(spec("orphan", 10s, wait(1s)), "1");
  EXPECT_GT(lease.fence(), fence);
  EXPECT_EQ(redis().cli({"HGET", "distlock:{orphan:1}", "count"}), "1");
  EXPECT_EQ(redis().cli({"HEXISTS", "distlock:{orphan:1}", "h:lost-reply"}), "0");
  // A lease the thread does hold is reentered: same fence, two holds.
  Lease inner = client->acquire(spec("orphan", 10s), "1");
  EXPECT_EQ(inner.fence(), lease.fence());
  EXPECT_EQ(redis().cli({"HGET", "distlock:{orphan:1}", "count"}), "2");
}

// What a replica promoted before the last increment reached it looks like: the counter is
// behind the last fence handed out. The next fence is above it anyway.
TEST_F(RedisBehaviour, AFenceCounterBehindTheLastFenceStillGivesAHigherFence) {
  auto client = connect();
  std::uint64_t last = 0;
  {
    Lease lease = client->acquire(spec("behind", 10s), "1");
    last = lease.fence();
  }
  redis().cli({"SET", "distlock:{behind:1}:fence", std::to_string(last - 10)});
  Lease next = client->acquire(spec("behind", 10s), "1");
  EXPECT_GT(next.fence(), last);
  EXPECT_EQ(redis().cli({"GET", "distlock:{behind:1}:fence"}), std::to_string(next.fence()));
}

// A counter ahead of the server's clock (grants within one microsecond, a clock set back)
// counts on from itself: each fence is one above the last.
TEST_F(RedisBehaviour, AFenceCounterAheadOfTheClockCountsOnFromItself) {
  auto client = connect();
  const std::uint64_t ahead = (std::stoull(redis().cli({"TIME"})) + 60) * 1000000;
  redis().cli({"SET", "distlock:{ahead:1}:fence", std::to_string(ahead)});
  for (std::uint64_t step = 1; step <= 2; ++step) {
    Lease lease = client->acquire(spec("ahead", 10s), "1");
    EXPECT_EQ(lease.fence(), ahead + step);
    lease.release();
  }
  EXPECT_EQ(redis().cli({"GET", "distlock:{ahead:1}:fence"}), std::to_string(ahead + 2));
}

TEST_F(RedisBehaviour, LockDeletedBehindTheHoldersBackIsSeenAsLost) {
  auto client = connect();
  Event lost;  // declared before the lease, so it outlives the lease's callback
  Lease lease = client->acquire(spec("order", 1s), "42");
  ASSERT_EQ(lease.name(), "order:42");
  ASSERT_EQ(redis().cli({"EXISTS", "distlock:{order:42}"}), "1");
  lease.on_lost([&](const LockLost& e) { lost.set(e.what()); });
  EXPECT_FALSE(lost.is_set());

  EXPECT_EQ(redis().cli({"DEL", "distlock:{order:42}"}), "1");
  // The next renewal (about 333 ms after the grant) finds it gone.
  ASSERT_TRUE(lost.wait_for(10s)) << "on_lost was not called";
  EXPECT_NE(lost.detail().find("order:42"), std::string::npos) << lost.detail();

  EXPECT_FALSE(lease.valid());
  try {
    lease.ensure_held();
    ADD_FAILURE() << "ensure_held() did not throw";
  } catch (const LockLost& e) {
    EXPECT_EQ(e.lock(), "order:42");
    EXPECT_EQ(e.server(), client->server());
  }
  EXPECT_GE(client->stats().lost, 1u);

  // Someone else may take it now, with a later fence.
  auto other = connect();
  auto taken = other->try_acquire(spec("order", 1s), "42");
  ASSERT_TRUE(taken.has_value());
  EXPECT_GT(taken->fence(), lease.fence());
  taken->release();

  // The server no longer had it for this lease: the protected work ran unprotected.
  EXPECT_THROW(lease.release(), LockLost);
}

TEST_F(RedisBehaviour, CheckedRunsUndoWhenTheLeaseIsLostDuringTheStep) {
  auto client = connect();
  Event lost;
  Lease lease = client->acquire(spec("order", 1s), "42");
  lease.on_lost([&](const LockLost&) { lost.set(); });

  bool undone = false;
  int undo_argument = 0;
  bool lost_during_step = false;
  try {
    checked(
        lease,
        [&] {
          redis().cli({"DEL", "distlock:{order:42}"});
          lost_during_step = lost.wait_for(10s);
          return 5;
        },
        [&](int result) {
          undone = true;
          undo_argument = result;
        });
    ADD_FAILURE() << "checked() did not throw";
  } catch (const LockLost& e) {
    EXPECT_EQ(e.lock(), "order:42");
    EXPECT_NE(std::string(e.what()).find("order:42"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(lost_during_step) << "on_lost was not called";
  EXPECT_TRUE(undone);
  EXPECT_EQ(undo_argument, 5);

  // On a lease already lost, the step does not run at all.
  bool ran = false;
  undone = false;
  EXPECT_THROW(checked(
                   lease, [&] { ran = true; }, [&] { undone = true; }),
               LockLost);
  EXPECT_FALSE(ran);
  EXPECT_FALSE(undone);
  EXPECT_GE(client->stats().lost, 1u);
}

TEST_F(RedisBehaviour, LockHashCarriesInspectionMetadata) {
  auto client = connect();
  redis().cli({"DEL", "distlock:{order:42}"});  // whatever an earlier test left behind
  std::optional<Lease> lease;
  ASSERT_NO_THROW(lease.emplace(client->acquire(spec("order", 30s, wait(10s)), "42")));

  auto fields = parse_hgetall(redis().cli({"HGETALL", "distlock:{order:42}"}));
  for (const char* field : {"owner", "count", "fence", "id", "holder"}) {
    EXPECT_TRUE(fields.contains(field)) << "no field " << field;
    EXPECT_FALSE(fields[field].empty()) << "empty field " << field;
  }
  EXPECT_TRUE(fields.contains("h:" + lease->id())) << "no hold field";
  EXPECT_EQ(fields.size(), 6u) << "fields beside the documented ones";
  EXPECT_EQ(fields["id"], lease->id());
  EXPECT_EQ(fields["fence"], std::to_string(lease->fence()));
  EXPECT_EQ(fields["count"], "1");
  // "<host> <pid> <acquired_at ms>"
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  const std::string prefix = std::string(host) + " " + std::to_string(::getpid()) + " ";
  ASSERT_EQ(fields["holder"].rfind(prefix, 0), 0u) << fields["holder"];
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const long long acquired_at = std::stoll(fields["holder"].substr(prefix.size()));
  EXPECT_LE(acquired_at, now_ms);
  EXPECT_GT(acquired_at, now_ms - 60'000);
  EXPECT_EQ(redis().cli({"EXISTS", "distlock:{order:42}:fence"}), "1");
  EXPECT_EQ(redis().cli({"GET", "distlock:{order:42}:fence"}), std::to_string(lease->fence()));
  const std::string pttl = redis().cli({"PTTL", "distlock:{order:42}"});
  EXPECT_GT(std::stoll(pttl), 0) << "the lock hash has no expiry";

  {
    Lease again = client->acquire(spec("order", 30s), "42");  // reentrant
    EXPECT_EQ(redis().cli({"HGET", "distlock:{order:42}", "count"}), "2");
  }
  EXPECT_EQ(redis().cli({"HGET", "distlock:{order:42}", "count"}), "1");
  lease->release();
  EXPECT_EQ(redis().cli({"EXISTS", "distlock:{order:42}"}), "0");
}

// A release publishes only for a lock that someone tried to take while it was held: the
// uncontended cycle costs the server no PUBLISH, and every client no message to read.
TEST_F(RedisBehaviour, OnlyAReleaseOfALockSomeoneWaitedForPublishes) {
  const std::string key = unique_name("channel");
  const std::string channel = "distlock:{published:" + key + "}:released";
  const auto redis_cli = redis_cli_program();
  ASSERT_FALSE(redis_cli.empty()) << "redis-cli not found";
  Subprocess subscriber(
      redis_cli, {"-h", "127.0.0.1", "-p", std::to_string(redis().port()), "SUBSCRIBE", channel});
  // redis-cli prints "subscribe", the channel and the subscription count once subscribed.
  ASSERT_EQ(subscriber.read_line(10s), "subscribe");
  ASSERT_EQ(subscriber.read_line(10s), channel);
  ASSERT_EQ(subscriber.read_line(10s), "1");
  const auto next_message = [&] {
    EXPECT_EQ(subscriber.read_line(10s), "message");
    EXPECT_EQ(subscriber.read_line(10s), channel);
    return subscriber.read_line(10s);
  };

  auto client = connect();
  auto other = connect();
  client->acquire(spec("published", 30s), key).release();
  // Messages arrive in the order they were published: a message from the release would come
  // before this one.
  redis().cli({"PUBLISH", channel, "after the uncontended release"});
  EXPECT_EQ(next_message(), "after the uncontended release");

  Lease lease = client->acquire(spec("published", 30s), key);
  EXPECT_FALSE(other->try_acquire(spec("published", 30s), key).has_value());
  lease.release();
  EXPECT_EQ(next_message(), "") << "a release of a lock someone tried for names nobody";
}

// A waiter of the winner's own client tried before the grant, so no try of its own marks the
// winner's lock: the winner's acquisition does, and its release wakes the waiter. Unwoken, the
// waiter would sleep until its wait ran out (the first holder's ttl is longer), and then find the
// lock free.
TEST_F(RedisBehaviour, AWaiterOfTheWinnersClientIsWokenByTheWinnersRelease) {
  const std::string key = unique_name("same-client");
  auto first = connect();
  auto waiters = connect();
  constexpr auto kWait = 10s;
  const LockSpec held_long = spec("same-client", 60s, wait(kWait));
  std::optional<Lease> holder(first->acquire(held_long, key));
  std::vector<std::thread> threads;
  threads.reserve(2);
  std::atomic<int> acquired = 0;
  for (int i = 0; i < 2; ++i)
    threads.emplace_back([&] {
      try {
        waiters->acquire(held_long, key).release();
        ++acquired;
      } catch (const LockTimeout&) {
      }
    });
  // EXPECT, not ASSERT: the threads must be joined whatever happens.
  EXPECT_TRUE(eventually([&] { return waiters->stats().waiting == 2; }));
  const auto released_at = std::chrono::steady_clock::now();
  holder->release();
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(acquired, 2);
  // Both within a fraction of the wait: unwoken, the second takes the lock only as its wait runs
  // out (it tries once more then).
  EXPECT_LT(std::chrono::steady_clock::now() - released_at, kWait / 2)
      << "a waiter slept through its own client's release";
}

}  // namespace
}  // namespace distlock::testing
