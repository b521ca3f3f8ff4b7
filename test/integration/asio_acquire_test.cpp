// SPDX-License-Identifier: Apache-2.0
// distlock::async_acquire (distlock/asio.h) on memory:// (and a private redis-server): coroutines
// on one thread wait for locks without blocking it, and exclude each other; a cancelled waiter, or
// one whose client closed, ends with operation_aborted and leaves no place behind; the other
// completion tokens work alike; async_campaign elects as Client::campaign does.
#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>

#include <gtest/gtest.h>

#include <distlock/asio.h>
#include <distlock/distlock.h>

#include "async_outcome.h"
#include "integration_helpers.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

class AsioAcquire : public ::testing::Test {
 protected:
  void SetUp() override { client_ = Client::connect("memory://" + unique_name("asio")); }

  std::shared_ptr<Client> client_;
};

// A thousand coroutines on one thread over ten locks of `client`. Each reads its lock's
// counter, lets the others run (a timer's wait), and writes it back one higher: without
// exclusion, interleaved coroutines would lose updates. Returns the failures seen.
::testing::AssertionResult thousand_coroutines_lose_no_update(Client& client) {
  constexpr int kLocks = 10;
  constexpr int kCoroutines = 1000;
  asio::io_context io;
  std::array<int, kLocks> counters{};
  int finished = 0;
  int failed = 0;
  std::string first_failure;
  const std::string prefix = unique_name("counter");
  auto update = [&](int lock) -> asio::awaitable<void> {
    try {
      Lease lease = co_await async_acquire(
          client, spec("counter", 30s), prefix + "-" + std::to_string(lock), asio::use_awaitable);
      const int seen = counters[lock];
      asio::steady_timer yield(io, 0ms);
      co_await yield.async_wait(asio::use_awaitable);
      counters[lock] = seen + 1;
    } catch (const std::exception& error) {
      if (failed++ == 0) first_failure = error.what();
    }
    ++finished;
  };
  for (int i = 0; i < kCoroutines; ++i) asio::co_spawn(io, update(i % kLocks), asio::detached);
  io.run();
  if (finished != kCoroutines || failed != 0)
    return ::testing::AssertionFailure() << finished << " of " << kCoroutines << " finished, "
                                         << failed << " failed; the first: " << first_failure;
  for (int lock = 0; lock < kLocks; ++lock)
    if (counters[lock] != kCoroutines / kLocks)
      return ::testing::AssertionFailure() << "lock " << lock << " counted " << counters[lock]
                                           << " of " << kCoroutines / kLocks << " updates";
  if (client.stats().waiting != 0)
    return ::testing::AssertionFailure() << client.stats().waiting << " still waiting";
  return ::testing::AssertionSuccess();
}

TEST_F(AsioAcquire, AThousandCoroutinesOnOneThreadLoseNoUpdate) {
  EXPECT_TRUE(thousand_coroutines_lose_no_update(*client_));
}

TEST(AsioAcquireOnRedis, AThousandCoroutinesOnOneThreadLoseNoUpdate) {
  RedisServer server;
  auto client = Client::connect(server.url());
  EXPECT_TRUE(thousand_coroutines_lose_no_update(*client));
}

TEST_F(AsioAcquire, AWaitThatRunsOutIsThrownIntoTheCoroutine) {
  Lease held = client_->acquire(spec("busy", 30s), "a");
  asio::io_context io;
  std::string caught;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        try {
          (void)co_await async_acquire(*client_, spec("busy", 30s, wait(100ms)), "a",
                                       asio::use_awaitable);
        } catch (const LockTimeout& timeout) {
          caught = timeout.what();
        }
      },
      asio::detached);
  io.run();
  EXPECT_NE(caught.find("lock 'busy:a'"), std::string::npos) << caught;
}

TEST_F(AsioAcquire, ACancelledWaiterEndsWithOperationAbortedAndLeavesNoPlace) {
  const auto fair_lock = spec("fair", 30s, fair);
  Lease held = client_->acquire(fair_lock, "a");
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  std::thread runner([&] { io.run(); });

  asio::cancellation_signal signal;
  std::promise<std::error_code> cancelled;
  asio::post(io, [&] {
    async_acquire(*client_, fair_lock, "a",
                  asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr error, Lease) {
                    try {
                      if (error) std::rethrow_exception(error);
                      cancelled.set_value({});
                    } catch (const std::system_error& aborted) {
                      cancelled.set_value(aborted.code());
                    } catch (...) {
                      cancelled.set_value(std::make_error_code(std::errc::invalid_argument));
                    }
                  }));
  });
  ASSERT_TRUE(eventually([&] { return client_->stats().waiting == 1; }));
  auto next = async_acquire(*client_, fair_lock, "a", asio::use_future);
  ASSERT_TRUE(eventually([&] { return client_->stats().waiting == 2; }));
  asio::post(io, [&] { signal.emit(asio::cancellation_type::terminal); });
  auto outcome = cancelled.get_future();
  ASSERT_EQ(outcome.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(outcome.get(), asio::error::operation_aborted);
  // The cancelled waiter's place is gone: the next fair waiter gets the lock on release.
  held.release();
  ASSERT_EQ(next.wait_for(30s), std::future_status::ready);
  EXPECT_TRUE(next.get().valid());
  work.reset();
  runner.join();
  EXPECT_TRUE(client_thread_caught_up(*client_));
}

// The cancellation slot is connected before the acquisition can complete: on an io_context of
// four threads without a strand, the completion, which clears the slot on one of them, may run
// as soon as the acquisition starts. Under ThreadSanitizer a slot connected after the start
// races with that clear.
TEST_F(AsioAcquire, ACancellableAcquisitionOnManyThreadsCompletesAfterItsSlotIsConnected) {
  constexpr int kThreads = 4;
  constexpr int kAcquisitions = 2000;
  asio::io_context io(kThreads);
  auto work = asio::make_work_guard(io);
  std::vector<asio::cancellation_signal> signals(kAcquisitions);
  std::atomic<int> granted{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back([&] { io.run(); });
  for (int i = 0; i < kAcquisitions; ++i)
    asio::post(io, [&, i] {
      async_acquire(*client_, spec("slot", 30s), "k" + std::to_string(i),
                    asio::bind_cancellation_slot(signals[i].slot(),
                                                 [&](std::exception_ptr error, Lease lease) {
                                                   if (!error && lease.valid()) ++granted;
                                                 }));
    });
  const bool all_granted = eventually([&] { return granted == kAcquisitions; });
  work.reset();
  for (auto& thread : threads) thread.join();
  EXPECT_TRUE(all_granted) << granted << " of " << kAcquisitions << " granted";
}

// A coroutine waiting for a lock that is never freed does not keep its io_context running once
// its client's last owner goes: the wait ends with operation_aborted, and run() returns.
TEST_F(AsioAcquire, DroppingTheClientEndsAWaitingCoroutineAndRunReturns) {
  const std::string name = "memory://" + unique_name("orphaned");
  auto holder = Client::connect(name);
  Lease held = holder->acquire(spec("orphaned", 30s), "a");
  auto waiting = Client::connect(name);
  asio::io_context io;
  std::error_code ended;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        try {
          (void)co_await async_acquire(*waiting, spec("orphaned", 30s), "a", asio::use_awaitable);
        } catch (const std::system_error& error) {
          ended = error.code();
        }
      },
      asio::detached);
  // The coroutine starts its wait on this thread: the client is dropped only after the call
  // that began the wait has returned, as a user's own code would order it.
  const bool waited = eventually([&] {
    io.poll();
    return waiting->stats().waiting == 1;
  });
  auto ran = std::async(std::launch::async, [&] { io.run(); });
  waiting.reset();
  const bool returned = ran.wait_for(30s) == std::future_status::ready;
  // Stopped by hand otherwise, so that a failure ends the test rather than hang it.
  if (!returned) io.stop();
  ran.wait();
  EXPECT_TRUE(waited) << "the coroutine never waited";
  EXPECT_TRUE(returned) << "run() did not return: the waiter kept its work alive";
  EXPECT_EQ(ended, asio::error::operation_aborted);
}

// A coroutine destroyed while it holds the lock (its io_context goes with it suspended) releases
// the lease as a return would: the frame's destruction ends the lease.
TEST_F(AsioAcquire, ACoroutineDestroyedWhileHoldingReleases) {
  auto io = std::make_unique<asio::io_context>();
  bool holding = false;
  asio::co_spawn(
      *io,
      [&]() -> asio::awaitable<void> {
        Lease lease =
            co_await async_acquire(*client_, spec("abandoned", 30s), "a", asio::use_awaitable);
        holding = true;
        asio::steady_timer forever(co_await asio::this_coro::executor, std::chrono::hours(1));
        co_await forever.async_wait(asio::use_awaitable);
      },
      asio::detached);
  while (!holding && io->run_one_for(30s) != 0) {
  }
  ASSERT_TRUE(holding);
  EXPECT_FALSE(client_->try_acquire(spec("abandoned", 30s), "a").has_value());
  ASSERT_TRUE(client_thread_caught_up(*client_));
  io.reset();
  EXPECT_TRUE(client_->try_acquire(spec("abandoned", 30s), "a").has_value())
      << "the destroyed coroutine's lease was not released";
}

TEST_F(AsioAcquire, UseFutureGetsTheLease) {
  std::future<Lease> granted = async_acquire(*client_, spec("future", 30s), "a", asio::use_future);
  ASSERT_EQ(granted.wait_for(30s), std::future_status::ready);
  Lease lease = granted.get();
  EXPECT_EQ(lease.name(), "future:a");
  EXPECT_TRUE(lease.valid());
  EXPECT_TRUE(client_thread_caught_up(*client_));
}

// async_campaign: a coroutine is elected without blocking its thread, a second campaigner
// waits while it leads and is elected, with a higher epoch, when it resigns; a cancelled
// campaign ends with operation_aborted.
TEST_F(AsioAcquire, ACoroutineCampaignsWaitsForTheLeaderAndIsElectedWhenItResigns) {
  const auto scheduler = election("scheduler", 30s);
  Leadership first = client_->campaign(scheduler);
  asio::io_context io;
  std::uint64_t epoch = 0;
  std::string failure;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        try {
          Leadership next = co_await async_campaign(*client_, scheduler, asio::use_awaitable);
          epoch = next.epoch();
        } catch (const std::exception& error) {
          failure = error.what();
        }
      },
      asio::detached);
  std::thread runner([&] { io.run(); });
  ASSERT_TRUE(eventually([&] { return client_->stats().waiting == 1; }));
  EXPECT_EQ(epoch, 0u) << "elected beside the leader";
  first.resign();
  runner.join();
  EXPECT_TRUE(failure.empty()) << failure;
  EXPECT_GT(epoch, first.epoch());

  Leadership leader = client_->campaign(scheduler);
  asio::cancellation_signal signal;
  std::future<Leadership> cancelled = async_campaign(
      *client_, scheduler, asio::bind_cancellation_slot(signal.slot(), asio::use_future));
  ASSERT_TRUE(eventually([&] { return client_->stats().waiting == 1; }));
  signal.emit(asio::cancellation_type::terminal);
  ASSERT_EQ(cancelled.wait_for(30s), std::future_status::ready);
  try {
    (void)cancelled.get();
    ADD_FAILURE() << "a cancelled campaign was elected";
  } catch (const std::system_error& aborted) {
    EXPECT_EQ(aborted.code(), asio::error::operation_aborted);
  }
  EXPECT_TRUE(leader.valid());
}

TEST_F(AsioAcquire, AnAsyncCampaignWithoutANameEndsWithConfigError) {
  ElectionSpec nameless;
  nameless.ttl = 1s;
  std::future<Leadership> refused = async_campaign(*client_, nameless, asio::use_future);
  ASSERT_EQ(refused.wait_for(30s), std::future_status::ready);
  EXPECT_THROW((void)refused.get(), ConfigError);
}

}  // namespace
}  // namespace distlock::testing
