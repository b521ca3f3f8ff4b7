// SPDX-License-Identifier: Apache-2.0
// The lock-kind examples (examples/lock_kinds) run against real servers: read_write,
// semaphore, fair and per_key on a private redis-server, zookeeper on a private ZooKeeper.
// Each example checks its kind's promise itself and exits 1 when it fails; these tests also
// read the figures it printed, so an example that stopped checking would not pass.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "redis_server.h"
#include "subprocess.h"
#ifdef DISTLOCK_TEST_ZOOKEEPER
#include "zookeeper_server.h"
#endif

namespace {

using distlock::testing::RedisServer;
using distlock::testing::Subprocess;

std::string run_example(const char* program, const std::string& url) {
  Subprocess example(program, {url});
  std::string output = example.read_all(std::chrono::seconds(60));
  const auto status = example.wait(std::chrono::seconds(10));
  EXPECT_TRUE(status.success()) << program << " " << url << ": " << status.describe() << "\n"
                                << output;
  return output;
}

TEST(LockKindExamples, ReadersShareTheReadLockAndWritesExcludeEveryoneOnRedis) {
  RedisServer server;
  const std::string output = run_example(DISTLOCK_EXAMPLE_READ_WRITE, server.url());
  EXPECT_NE(output.find("readers inside report:7 at once: 3 of 3\n"), std::string::npos) << output;
  EXPECT_NE(output.find("writes overlapping another hold: 0\n"), std::string::npos) << output;
}

TEST(LockKindExamples, TwoPermitsLetTwoHoldersInAndNoMoreOnRedis) {
  RedisServer server;
  const std::string output = run_example(DISTLOCK_EXAMPLE_SEMAPHORE, server.url());
  EXPECT_NE(output.find("holders inside export:eu at once: 2 of 2 permits\n"), std::string::npos)
      << output;
  EXPECT_NE(output.find("most inside at once among 4 workers: 2\n"), std::string::npos) << output;
}

TEST(LockKindExamples, FairWaitersAreGrantedInArrivalOrderOnRedis) {
  RedisServer server;
  const std::string output = run_example(DISTLOCK_EXAMPLE_FAIR, server.url());
  EXPECT_NE(output.find("granted to waiters, in turn: 0 1 2 3 4\n"), std::string::npos) << output;
}

TEST(LockKindExamples, PerKeyTransfersInOppositeDirectionsLoseNothingOnRedis) {
  RedisServer server;
  const std::string output = run_example(DISTLOCK_EXAMPLE_PER_KEY, server.url());
  EXPECT_NE(output.find("transfers under both locks: 200 of 200\n"), std::string::npos) << output;
  EXPECT_NE(output.find("balances: alice 1100 (expected 1100), bob 900 (expected 900)\n"),
            std::string::npos)
      << output;
}

#ifdef DISTLOCK_TEST_ZOOKEEPER
TEST(LockKindExamples, ZooKeeperLockKeepsEveryUpdateWithIncreasingFences) {
  distlock::testing::ZooKeeperServer server;
  const std::string output = run_example(DISTLOCK_EXAMPLE_ZOOKEEPER, server.url());
  EXPECT_NE(output.find("entries posted under /distlock/ledger/main: 100 of 100\n"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("fences increasing in grant order: yes\n"), std::string::npos) << output;
}
#endif

}  // namespace
