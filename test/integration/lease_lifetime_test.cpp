// SPDX-License-Identifier: Apache-2.0
// Who destroys a client's core (runtime/core/client_core.h), against a real redis-server: the
// thread that drops the last Client and owning Lease, never the renewal thread, even when the
// drop happens while that thread is still reporting the lease's loss. And what a release waits
// for of the renewal thread: its own lease's loss report, no other lease's.
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

#include "integration_helpers.h"
#include "redis_server.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// Connections the server has open, besides the redis-cli asking.
int other_connections(const RedisServer& server) {
  std::istringstream list(server.cli({"CLIENT", "LIST"}));
  int count = 0;
  for (std::string line; std::getline(list, line);)
    if (line.find("cmd=client") == std::string::npos) ++count;
  return count;
}

TEST(LeaseLifetime, ClientDroppedWhileTheRenewalThreadReportsTheLoss) {
  RedisServer server;
  auto client = Client::connect(server.url());
  auto lease = std::make_unique<Lease>(client->acquire(spec("lifetime", 300ms)));
  Event in_callback;
  Event callback_may_return;
  lease->on_lost([&](const LockLost&) {
    in_callback.set();
    callback_may_return.wait_for(60s);
  });
  server.cli({"DEL", "distlock:{lifetime}"});
  ASSERT_TRUE(in_callback.wait_for(60s)) << "the next renewal did not find the lock gone";

  // The renewal thread is inside the callback now, with the lease's renewal batch in hand.
  Event dropped;
  std::thread owner([&] {
    try {
      lease->release();
    } catch (const LockLost&) {
      // Expected: the server no longer had it.
    }
    lease.reset();
    client.reset();
    dropped.set();
  });
  // The release waits for its own lease's loss report (the contract): while the callback runs,
  // the owner cannot be done.
  EXPECT_FALSE(dropped.wait_for(500ms)) << "the release returned before its loss was reported";
  callback_may_return.set();
  owner.join();
  // The core went, on the owner's thread: its connections closed. Had the renewal thread
  // been left with the last reference, it would have deadlocked destroying its own queue and
  // the connections would stay open.
  EXPECT_TRUE(eventually([&] { return other_connections(server) == 0; }, 30s))
      << other_connections(server) << " connections still open";
}

// Releasing one lease never waits for another lease's lost callback, even when both were in
// the renewal batch that found the other one lost: a service may release a lease while it holds
// a mutex that the other lease's callback takes.
TEST(LeaseLifetime, AReleaseDoesNotWaitForAnotherLeasesLostCallback) {
  RedisServer server;
  auto client = Client::connect(server.url());
  // Granted together with one ttl, so renewed in one batch (the later one's renewal window has
  // opened when the first comes due: runtime/core/renewal_schedule.h).
  Lease kept = client->acquire(spec("kept", 3s));
  Lease lost = client->acquire(spec("lost", 3s));
  std::mutex service_mutex;
  Event in_callback;
  lost.on_lost([&](const LockLost&) {
    in_callback.set();
    const std::lock_guard lock(service_mutex);
  });
  std::unique_lock service_lock(service_mutex);
  server.cli({"DEL", "distlock:{lost}"});
  ASSERT_TRUE(in_callback.wait_for(60s)) << "the renewal did not find the lock gone";

  // The renewal thread waits in the callback for service_mutex, which this thread holds.
  Event released;
  std::thread releaser([&] {
    kept.release();
    released.set();
  });
  EXPECT_TRUE(released.wait_for(30s)) << "the release waited for the other lease's callback";
  service_lock.unlock();
  releaser.join();
}

// A lost callback that owns the last owning Lease: when the callback goes, after it ran, so does
// the client's core, on the renewal thread, whose queue would then join its own thread
// (std::terminate). Instead the core goes on a thread of its own, once the renewal thread is
// done with its batch. Returns 0 when the core went (its connections closed).
int drop_the_last_lease_with_its_lost_callback() {
  RedisServer server;
  Event callback_ran;
  {
    auto client = Client::connect(server.url());
    auto lease = std::make_shared<Lease>(client->acquire(spec("last", 300ms)));
    lease->on_lost([lease, &callback_ran](const LockLost&) { callback_ran.set(); });
  }
  server.cli({"DEL", "distlock:{last}"});
  if (!callback_ran.wait_for(60s)) return 2;
  if (!eventually([&] { return other_connections(server) == 0; }, 30s)) return 3;
  return 0;
}

// In a child process (a death test), so that a std::terminate fails this test alone.
TEST(LeaseLifetime, ALostCallbackThatOwnsTheLastLeaseEndsTheClientOffTheRenewalThread) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(drop_the_last_lease_with_its_lost_callback()), ::testing::ExitedWithCode(0),
              "")
      << "2: the loss was not reported; 3: the client's connections stayed open";
}

}  // namespace
}  // namespace distlock::testing
