// SPDX-License-Identifier: Apache-2.0
// Read-write locks, semaphores and fair locks on a real redis-server: races across processes
// (rw_worker children record each hold's interval, and the test checks them) and what the
// server keeps (a fair lock's queue). The rules of each kind are in lock_behaviour_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <distlock/distlock.h>

#include "counter_file.h"
#include "hold_intervals.h"
#include "holder_thread.h"
#include "integration_helpers.h"
#include "redis_script_text.h"
#include "redis_server.h"
#include "subprocess.h"
#include "tcp_proxy.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

class RedisLockKinds : public ::testing::Test {
 protected:
  void SetUp() override {
    counter_ = (directory_.path() / "counter").string();
    intervals_ = (directory_.path() / "intervals").string();
    write_counter_file(counter_, {0, 0});
  }

  // `kind`: {"--mode", "read"}, {"--permits", "3"}, ...
  std::unique_ptr<Subprocess> worker(const std::vector<std::string>& kind, int iterations,
                                     int threads) {
    std::vector<std::string> args = {"--url",        server_.url(),
                                     "--type",       type_,
                                     "--key",        "shared",
                                     "--iterations", std::to_string(iterations),
                                     "--threads",    std::to_string(threads),
                                     "--counter",    counter_,
                                     "--intervals",  intervals_,
                                     "--pause-us",   "2000"};
    args.insert(args.end(), kind.begin(), kind.end());
    auto process = std::make_unique<Subprocess>(DISTLOCK_RW_WORKER, args);
    EXPECT_EQ(process->read_line(30s), "ready") << "rw_worker " << kind.back() << " did not start";
    return process;
  }

  std::shared_ptr<Client> connect() const { return Client::connect(server_.url()); }

  RedisServer server_;
  TempDirectory directory_;
  const std::string type_ = unique_name("kinds");
  std::string counter_;
  std::string intervals_;
};

TEST_F(RedisLockKinds, ReadersShareAndNoWriterOverlapsAnyHoldAcrossProcesses) {
  constexpr int kIterations = 25;
  auto readers_a = worker({"--mode", "read"}, kIterations, 2);
  auto readers_b = worker({"--mode", "read"}, kIterations, 2);
  auto writer_a = worker({"--mode", "write"}, kIterations, 2);
  auto writer_b = worker({"--mode", "write"}, kIterations, 2);
  const std::uint64_t writes =
      finish_worker(*writer_a, "writer a") + finish_worker(*writer_b, "writer b");
  const std::uint64_t reads =
      finish_worker(*readers_a, "readers a") + finish_worker(*readers_b, "readers b");
  EXPECT_EQ(writes, 2u * 2 * kIterations);
  EXPECT_EQ(reads, 2u * 2 * kIterations);
  EXPECT_EQ(read_counter_file(counter_).count, writes) << "lost updates: two writers at once";

  const auto holds = read_intervals(intervals_);
  EXPECT_EQ(holds.size(), writes + reads);
  const std::string overlaps = write_overlaps(holds);
  EXPECT_EQ(overlaps, "") << "a write hold overlapped another hold:\n" << overlaps;
  const int shared = read_overlaps(holds);
  EXPECT_GT(shared, 0) << "no two readers ever held the lock together";
  std::cout << "[ figures  ] " << writes << " writes, " << reads << " reads, " << shared
            << " pairs of overlapping reads\n";
}

TEST_F(RedisLockKinds, ASemaphoreNeverHasMoreHoldersThanPermits) {
  constexpr int kPermits = 3;
  constexpr int kIterations = 15;
  std::vector<std::unique_ptr<Subprocess>> workers;
  for (int i = 0; i < 4; ++i)
    workers.push_back(worker({"--permits", std::to_string(kPermits)}, kIterations, 4));
  std::uint64_t holds_done = 0;
  for (auto& process : workers) holds_done += finish_worker(*process, "permit holder");
  EXPECT_EQ(holds_done, 4u * 4 * kIterations);

  const auto holds = read_intervals(intervals_);
  EXPECT_EQ(holds.size(), holds_done);
  const int most = most_at_once(holds);
  EXPECT_LE(most, kPermits) << "more holders than permits at once";
  EXPECT_GT(most, 1) << "the permits were never shared";
  std::cout << "[ figures  ] " << holds_done << " holds of " << kPermits << " permits, at most "
            << most << " at once\n";
}

// A fair waiter that dies leaves the queue within its ttl, by itself: the next waiter gets the
// lock once the dead one's place has expired, without anyone cleaning up.
TEST_F(RedisLockKinds, AKilledFairWaiterLeavesTheQueueWithinItsTtl) {
  const std::string key = unique_name("queue");
  auto client = connect();
  Lease held = client->acquire(spec(std::string_view(type_), 30s, distlock::fair), key);
  const std::string queue = "distlock:{" + held.name() + "}:queue";

  Subprocess doomed(DISTLOCK_COUNTER_WORKER, {"--hold", server_.url(), type_, key, "1000", "fair"});
  ASSERT_TRUE(eventually([&] {
    return server_.cli({"ZCARD", queue}) == "1";
  })) << "the waiter never joined the queue: "
      << doomed.pending_output();
  auto behind = connect();
  // The release's message names the dead waiter, so the one behind sleeps on until its next
  // retry, a third of its ttl: 1 s here (with a 30 s ttl it would come 10 s later, this test's
  // whole limit).
  Holder next(*behind, spec(std::string_view(type_), 3s, distlock::fair, wait(30s)), key);
  ASSERT_TRUE(eventually([&] { return behind->stats().waiting == 1; }));
  EXPECT_EQ(server_.cli({"ZCARD", queue}), "2");

  doomed.kill(SIGKILL);
  const ExitStatus status = doomed.wait(10s);
  EXPECT_TRUE(status.signaled && status.signal == SIGKILL) << status.describe();
  // The release grants the lock to the dead waiter, first in line; that grant expires within
  // its 1 s ttl.
  held.release();
  ASSERT_TRUE(next.granted_within(10s)) << "the queue did not move on past a dead waiter";
  EXPECT_GT(next.fence(), held.fence());
  EXPECT_EQ(server_.cli({"ZCARD", queue}), "0");
  EXPECT_GE(behind->stats().woken_by_timeout, 1u) << "woken by a release that granted the dead";
}

// A fair waiter whose wait runs out leaves the queue at once, not one ttl later.
TEST_F(RedisLockKinds, AFairWaiterThatTimesOutLeavesNoPlaceBehind) {
  const std::string key = unique_name("impatient");
  auto client = connect();
  Lease held = client->acquire(spec(std::string_view(type_), 30s, distlock::fair), key);
  const std::string queue = "distlock:{" + held.name() + "}:queue";
  auto other = connect();
  EXPECT_THROW(other->acquire(spec(std::string_view(type_), 30s, distlock::fair, wait(200ms)), key),
               LockTimeout);
  EXPECT_EQ(server_.cli({"ZCARD", queue}), "0");
  EXPECT_EQ(server_.cli({"ZCARD", queue + ":expiries"}), "0");
  EXPECT_EQ(server_.cli({"HLEN", queue + ":grants"}), "0");
}

// A fair lock held by a client, and a waiter of another client queued behind it.
struct QueuedBehindHolder {
  QueuedBehindHolder(const std::string& url, const LockSpec& fair_lock, const std::string& key)
      : holding(Client::connect(url)),
        held(holding->acquire(fair_lock, key)),
        hash("distlock:{" + held.name() + "}"),
        waiting(Client::connect(url)),
        waiter(*waiting, fair_lock, key) {}

  std::shared_ptr<Client> holding;
  Lease held;
  const std::string hash;
  std::shared_ptr<Client> waiting;
  Holder waiter;
};

// A fair release grants the lock to the first waiter and tells it so: the waiter holds it
// without asking again, one round trip sooner.
TEST_F(RedisLockKinds, AFairReleaseHandsTheLockToTheFirstWaiterWithoutItAskingAgain) {
  const auto fair_lock = spec(std::string_view(type_), 30s, distlock::fair, wait(30s));
  QueuedBehindHolder queue(server_.url(), fair_lock, unique_name("handed"));
  auto& [holding, held, hash, waiting, waiter] = queue;
  ASSERT_TRUE(eventually([&] { return waiting->stats().waiting == 1; }));
  const std::uint64_t asked = waiting->stats().round_trips;

  held.release();
  ASSERT_TRUE(waiter.granted_within(10s));
  EXPECT_GT(waiter.fence(), held.fence());
  EXPECT_EQ(waiting->stats().round_trips, asked) << "the waiter asked for the lock again";
  EXPECT_EQ(waiting->stats().woken_by_release, 1u);
  EXPECT_EQ(server_.cli({"HGET", hash, "fence"}), std::to_string(waiter.fence()));
  const long long pttl = std::stoll(server_.cli({"PTTL", hash}));
  EXPECT_GT(pttl, 20000) << "granted with a ttl other than the waiter's 30 s";
  EXPECT_EQ(
      server_.cli({"EXISTS", hash + ":queue", hash + ":queue:expiries", hash + ":queue:grants"}),
      "0");
}

// A waiter whose wait ran out just as a release granted it the lock gives the lock back when it
// withdraws, to the next waiter: a grant nobody takes must not keep the lock for a ttl.
TEST_F(RedisLockKinds, AWaiterWithdrawingAfterItsGrantHandsTheLockOn) {
  const auto fair_lock = spec(std::string_view(type_), 30s, distlock::fair, wait(30s));
  QueuedBehindHolder queue(server_.url(), fair_lock, unique_name("late"));
  auto& [holding, first, hash, waiting, next] = queue;
  ASSERT_TRUE(eventually([&] { return waiting->stats().waiting == 1; }));

  // As the withdrawal of `first`'s acquisition, had it been a waiter granted by a release.
  const std::string withdraw =
      redis_script_text({"lib/fence", "lib/exclusive_hold", "lib/shared_holds", "lib/fair_queue",
                         "lib/release_hold", "withdraw_fair"});
  EXPECT_EQ(server_.cli({"EVAL", withdraw, "5", hash, hash + ":fence", hash + ":queue",
                         hash + ":queue:expiries", hash + ":queue:grants", first.id(),
                         hash + ":released", "PUBLISH"}),
            "1");
  ASSERT_TRUE(next.granted_within(10s)) << "the lock given back did not go to the next waiter";
  EXPECT_GT(next.fence(), first.fence());
  EXPECT_EQ(server_.cli({"HGET", hash, "fence"}), std::to_string(next.fence()));
}

// A waiter that leaves by an error gives its place back: its retry's connection is cut twice
// after the script ran (the second time on the new connection the retry takes), so the
// acquisition throws BackendUnavailable; the fair waiter's queue place, or the writer's mark
// that held new readers back, is withdrawn on the way out instead of lingering for its ttl.
class WaiterLeavingByAnError : public RedisLockKinds {
 protected:
  // Waits through a proxy for a lock another client holds (`waiting_spec` retries at least
  // every third of its ttl), until its retries whose requests run `script_text` are cut;
  // returns what the acquisition threw.
  std::exception_ptr wait_until_failed(const LockSpec& waiting_spec, const std::string& key,
                                       const std::string& script_text) {
    TcpProxy proxy(server_.port());
    // outage_limit=0s: a lost connection ends the wait, rather than being ridden through.
    auto waiter = Client::connect("redis://" + proxy.address() + "?outage_limit=0s");
    auto failed = std::async(std::launch::async, [&] {
      try {
        waiter->acquire(waiting_spec, key);
      } catch (...) {
        return std::current_exception();
      }
      return std::exception_ptr();
    });
    EXPECT_TRUE(eventually([&] { return waiter->stats().waiting == 1; }));
    const std::string digest = server_.cli({"SCRIPT", "LOAD", script_text});
    proxy.cut_after_reply_to(digest, 2);
    EXPECT_EQ(failed.wait_for(20s), std::future_status::ready) << "the waiter did not fail";
    EXPECT_EQ(proxy.reply_cuts(), 2);
    return failed.get();
  }
};

TEST_F(WaiterLeavingByAnError, AFairWaiterGivesItsQueuePlaceBack) {
  const std::string key = unique_name("fair");
  const std::string hash = "distlock:{" + type_ + ":" + key + "}";
  auto holder = connect();
  Lease held = holder->acquire(spec(std::string_view(type_), 30s, distlock::fair), key);
  const auto thrown =
      wait_until_failed(spec(std::string_view(type_), 3s, distlock::fair, wait(20s)), key,
                        redis_script_text({"lib/fence", "lib/exclusive_hold", "lib/shared_holds",
                                           "lib/fair_queue", "acquire_fair"}));
  EXPECT_THROW(std::rethrow_exception(thrown), BackendUnavailable);
  EXPECT_EQ(server_.cli({"ZCARD", hash + ":queue"}), "0") << "the queue still has the waiter";
  EXPECT_EQ(server_.cli({"HLEN", hash + ":queue:grants"}), "0");
}

TEST_F(WaiterLeavingByAnError, AWriterTakesBackTheMarkThatHeldReadersBack) {
  const std::string key = unique_name("writer");
  const std::string hash = "distlock:{" + type_ + ":" + key + "}";
  auto holder = connect();
  Lease reading = holder->acquire(spec(std::string_view(type_), 30s, distlock::read), key);
  const auto thrown = wait_until_failed(
      spec(std::string_view(type_), 3s, distlock::write, wait(20s)), key,
      redis_script_text({"lib/fence", "lib/exclusive_hold", "lib/shared_holds", "acquire_write"}));
  EXPECT_THROW(std::rethrow_exception(thrown), BackendUnavailable);
  EXPECT_EQ(server_.cli({"ZCARD", hash + ":rw:writers"}), "0") << "the writer's mark lingers";
  std::optional<Lease> reader;
  std::thread([&] {
    reader = holder->try_acquire(spec(std::string_view(type_), 30s, distlock::read), key);
  }).join();
  EXPECT_TRUE(reader.has_value()) << "a new reader is held back by a writer that left";
}

}  // namespace
}  // namespace distlock::testing
