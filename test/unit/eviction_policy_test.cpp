// SPDX-License-Identifier: Apache-2.0
// Whether a Redis server may evict lock keys (runtime/backends/redis/transport/eviction_policy.h),
// from INFO memory's text as servers write it, and the verdict on each kind of policy.
#include "backends/redis/transport/eviction_policy.h"

#include <gtest/gtest.h>

#include <string>

namespace distlock::detail::redis {
namespace {

// INFO memory's answer, in the shape Redis 7.0 gives it (CRLF lines, other fields around).
std::string info_memory(const std::string& maxmemory, const std::string& policy) {
  return "# Memory\r\nused_memory:1019400\r\nused_memory_human:995.51K\r\nmaxmemory:" + maxmemory +
         "\r\nmaxmemory_human:64.00M\r\nmaxmemory_policy:" + policy +
         "\r\nallocator_frag_ratio:1.15\r\n";
}

TEST(RedisEvictionPolicy, ReadsMaxmemoryAndItsPolicyFromInfoMemory) {
  const auto memory = parse_memory_info(info_memory("67108864", "volatile-lru"));
  ASSERT_TRUE(memory);
  EXPECT_EQ(memory->maxmemory, 67108864u);
  EXPECT_EQ(memory->policy, "volatile-lru");

  // Plain LF lines, and the policy as the last line without its end.
  const auto bare = parse_memory_info("maxmemory_policy:noeviction\nmaxmemory:0");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->maxmemory, 0u);
  EXPECT_EQ(bare->policy, "noeviction");
}

TEST(RedisEvictionPolicy, WithoutBothFieldsThereIsNoPolicy) {
  EXPECT_FALSE(parse_memory_info(""));
  EXPECT_FALSE(parse_memory_info("# Memory\r\nused_memory:1019400\r\nmaxmemory:0\r\n"));
  EXPECT_FALSE(parse_memory_info("# Memory\r\nmaxmemory_policy:noeviction\r\n"));
  // maxmemory_human is not maxmemory.
  EXPECT_FALSE(parse_memory_info("maxmemory_human:64.00M\r\nmaxmemory_policy:allkeys-lru\r\n"));
  EXPECT_FALSE(parse_memory_info(info_memory("64mb", "allkeys-lru")));
  EXPECT_FALSE(parse_memory_info(info_memory("67108864", "")));
}

TEST(RedisEvictionPolicy, EveryPolicyButNoevictionPutsLocksAtRiskUnderAMaxmemory) {
  for (const std::string policy :
       {"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru",
        "allkeys-lfu", "allkeys-random", "a-policy-of-tomorrow"}) {
    const auto verdict = judge_eviction({1048576, policy});
    EXPECT_TRUE(verdict.may_evict_locks) << policy;
    EXPECT_NE(verdict.reason.find("maxmemory-policy " + policy), std::string::npos)
        << verdict.reason;
    EXPECT_NE(verdict.reason.find("1048576"), std::string::npos) << verdict.reason;
    EXPECT_NE(verdict.reason.find("set maxmemory-policy noeviction"), std::string::npos)
        << verdict.reason;
  }
  EXPECT_NE(judge_eviction({1, "volatile-ttl"}).reason.find("ttl"), std::string::npos);
  EXPECT_NE(judge_eviction({1, "allkeys-lfu"}).reason.find("any key"), std::string::npos);
}

TEST(RedisEvictionPolicy, NoevictionOrNoMaxmemoryEvictsNoLock) {
  const auto refuses = judge_eviction({1048576, "noeviction"});
  EXPECT_FALSE(refuses.may_evict_locks);
  EXPECT_NE(refuses.reason.find("noeviction"), std::string::npos) << refuses.reason;
  EXPECT_NE(refuses.reason.find("OOM"), std::string::npos) << refuses.reason;

  // The policy applies only under a maxmemory.
  const auto unlimited = judge_eviction({0, "allkeys-lru"});
  EXPECT_FALSE(unlimited.may_evict_locks);
  EXPECT_NE(unlimited.reason.find("no maxmemory"), std::string::npos) << unlimited.reason;
}

}  // namespace
}  // namespace distlock::detail::redis
