// SPDX-License-Identifier: Apache-2.0
// distlock::boost_asio::async_acquire (distlock/boost_asio.h) on memory://: Boost.Asio
// coroutines on one thread wait for locks without blocking it and exclude each other; a timeout
// is thrown into the coroutine; use_future gets the lease, and the term of a campaign.
#include <array>
#include <chrono>
#include <future>
#include <memory>
#include <string>
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <gtest/gtest.h>

#include <distlock/boost_asio.h>
#include <distlock/distlock.h>

#include "async_outcome.h"
#include "integration_helpers.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;
namespace net = ::boost::asio;

class BoostAsioAcquire : public ::testing::Test {
 protected:
  void SetUp() override { client_ = Client::connect("memory://" + unique_name("boost")); }

  std::shared_ptr<Client> client_;
};

// Each coroutine reads its lock's counter, lets the others run, and writes it back one higher:
// without exclusion, interleaved coroutines would lose updates.
TEST_F(BoostAsioAcquire, AThousandCoroutinesOnOneThreadLoseNoUpdate) {
  constexpr int kLocks = 10;
  constexpr int kCoroutines = 1000;
  net::io_context io;
  std::array<int, kLocks> counters{};
  int finished = 0;
  auto update = [&](int lock) -> net::awaitable<void> {
    Lease lease = co_await boost_asio::async_acquire(*client_, spec("counter", 30s),
                                                     std::to_string(lock), net::use_awaitable);
    const int seen = counters[lock];
    net::steady_timer yield(io, 0ms);
    co_await yield.async_wait(net::use_awaitable);
    counters[lock] = seen + 1;
    ++finished;
  };
  for (int i = 0; i < kCoroutines; ++i) net::co_spawn(io, update(i % kLocks), net::detached);
  io.run();
  EXPECT_EQ(finished, kCoroutines);
  for (int lock = 0; lock < kLocks; ++lock)
    EXPECT_EQ(counters[lock], kCoroutines / kLocks) << "lock " << lock;
}

TEST_F(BoostAsioAcquire, AWaitThatRunsOutIsThrownIntoTheCoroutine) {
  Lease held = client_->acquire(spec("busy", 30s), "a");
  net::io_context io;
  std::string caught;
  net::co_spawn(
      io,
      [&]() -> net::awaitable<void> {
        try {
          (void)co_await boost_asio::async_acquire(*client_, spec("busy", 30s, wait(100ms)), "a",
                                                   net::use_awaitable);
        } catch (const LockTimeout& timeout) {
          caught = timeout.what();
        }
      },
      net::detached);
  io.run();
  EXPECT_NE(caught.find("lock 'busy:a'"), std::string::npos) << caught;
}

TEST_F(BoostAsioAcquire, UseFutureGetsTheLease) {
  std::future<Lease> granted =
      boost_asio::async_acquire(*client_, spec("future", 30s), "a", net::use_future);
  ASSERT_EQ(granted.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(granted.get().name(), "future:a");
  EXPECT_TRUE(client_thread_caught_up(*client_));
}

TEST_F(BoostAsioAcquire, UseFutureGetsTheTermOfACampaign) {
  std::future<Leadership> elected =
      boost_asio::async_campaign(*client_, election("scheduler", 30s), net::use_future);
  ASSERT_EQ(elected.wait_for(30s), std::future_status::ready);
  Leadership term = elected.get();
  EXPECT_EQ(term.lease().name(), "elections:scheduler");
  EXPECT_TRUE(term.valid());
  EXPECT_FALSE(client_->try_campaign(election("scheduler", 30s)).has_value());
}

}  // namespace
}  // namespace distlock::testing
