// SPDX-License-Identifier: Apache-2.0
// What is particular to Redis in riding an outage through (core/ride_through.h; the server out
// of reach on every backend: ride_through_test.cpp): a refusal (an error the server would
// repeat) is not ridden through, outage_limit is a URL parameter that Redlock does not take,
// and plain acquisitions ride through a Sentinel failover and a Cluster's promotion.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "captured_log.h"
#include "integration_helpers.h"
#include "redis_cluster.h"
#include "redis_sentinel_group.h"
#include "redis_server.h"
#include "redis_suite.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

using RedisOutage = RedisSuiteTest;

// What an acquisition logs when it begins to ride through an outage.
bool told_of_outage(const CapturedLog& log) {
  const auto lines = log.lines_at(LogLevel::warning);
  return std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
    return line.find("riding it through") != std::string::npos;
  });
}

TEST_F(RedisOutage, ARefusalIsNotRiddenThrough) {
  auto client = connect();
  const std::string key = unique_name("refused");
  // The lock's hash as a string: the acquire script's HGET fails with WRONGTYPE every time.
  redis().cli({"SET", "distlock:{outage:" + key + "}", "not a hash"});
  const CapturedLog log;
  EXPECT_THROW(client->acquire(spec("outage", 30s, wait(30s)), key), BackendUnavailable);
  EXPECT_FALSE(told_of_outage(log)) << ::testing::PrintToString(log.lines());
}

TEST_F(RedisOutage, TheLimitIsAUrlParameter) {
  EXPECT_THROW(Client::connect(redis().url() + "?outage_limit=soon"), ConfigError);
  EXPECT_THROW(Client::connect("redis+redlock://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3"
                               "?outage_limit=soon"),
               ConfigError)
      << "Redlock reads the parameter before it connects, as one server does";
  EXPECT_THROW(Client::connect(redis().url() + "?outage_limit=-1s"), ConfigError);
  EXPECT_NO_THROW(Client::connect(redis().url() + "?outage_limit=1s"));
  EXPECT_NO_THROW(Client::connect(redis().url() + "?outage_limit=0s"));
}

// Plain blocking acquisitions of one lock in a loop, each released on scope exit, while
// `fail_over` kills the master that serves it and a replica is promoted: none of them fails, and
// five more go through after it.
void expect_acquisitions_ride_through(const std::string& url,
                                      const std::function<void()>& fail_over) {
  auto client = Client::connect(url + "?outage_limit=60s");
  std::atomic<bool> failed_over{false};
  std::atomic<int> cycles_after{0};
  auto counting = std::async(std::launch::async, [&] {
    while (cycles_after.load() < 5) {
      {
        Lease lease = client->acquire(spec("failover", 10s, wait(60s)), "ride");
      }
      if (failed_over.load()) ++cycles_after;
    }
  });
  ASSERT_TRUE(eventually([&] { return client->stats().acquired >= 5; }));
  fail_over();
  failed_over = true;
  ASSERT_EQ(counting.wait_for(90s), std::future_status::ready);
  EXPECT_NO_THROW(counting.get()) << "an acquisition failed through the failover";
  EXPECT_EQ(client->stats().release_failures, 0u) << "a release failed through the failover";
}

// On Sentinel, without min_replicas: the master is SIGKILLed.
TEST(RedisSentinelOutage, PlainAcquisitionsRideThroughAFailover) {
  SentinelGroup group(1);
  expect_acquisitions_ride_through(group.url(),
                                   [&] { group.kill_master_and_wait_for_failover(60s); });
}

// With the sentinels' shipped down-after (30 s) and the URL's defaults: a wait of a minute and a
// wait without limit (outage_limit, 60 s by default), both begun as the master dies, are
// granted by the replica promoted half a minute later.
TEST(RedisSentinelOutage, WaitsRideThroughAFailoverAtTheShippedDownAfter) {
  SentinelGroup group(1);
  group.judge_master_down_after(30s);
  auto client = Client::connect(group.url());
  { Lease before = client->acquire(spec("failover", 10s), "shipped"); }
  const std::uint16_t old_master = group.master_port_by_sentinels();
  ::kill(group.master().pid(), SIGKILL);
  auto without_limit = std::async(std::launch::async, [&] {
    return client->acquire(spec("failover", 10s), "unlimited").valid();
  });
  Lease lease = client->acquire(spec("failover", 10s, wait(60s)), "shipped");
  EXPECT_TRUE(lease.valid());
  EXPECT_TRUE(without_limit.get());
  EXPECT_NE(group.master_port_by_sentinels(), old_master) << "granted without a failover";
}

// On a Cluster: the master of the lock's slot is SIGKILLed.
TEST(RedisClusterOutage, PlainAcquisitionsRideThroughAPromotion) {
  RedisCluster cluster;
  expect_acquisitions_ride_through(cluster.url(), [&] {
    cluster.kill_master_of(cluster.key_slot("distlock:{failover:ride}"), 60s);
  });
}

}  // namespace
}  // namespace distlock::testing
