// SPDX-License-Identifier: Apache-2.0
// What a Redis server may take away by itself: with a maxmemory and a policy other than
// noeviction it evicts keys when memory runs out, lock keys included. The client warns once
// per server when it connects (INFO memory); a user that may not run INFO gets a debug line.
// And when a lock key is evicted, its holder is told at its next renewal, and the fence still
// keeps its late writes out.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <future>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "captured_log.h"
#include "integration_helpers.h"
#include "redis_sentinel_group.h"
#include "redis_server.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// The lines of `lines` that contain `text`.
std::vector<std::string> containing(const std::vector<std::string>& lines, std::string_view text) {
  std::vector<std::string> found;
  std::copy_if(lines.begin(), lines.end(), std::back_inserter(found),
               [&](const std::string& line) { return line.find(text) != std::string::npos; });
  return found;
}

// The number on the INFO line `<name>:<number>`.
std::optional<unsigned long long> info_field(const std::string& info, const std::string& name) {
  for (const auto& line : lines_of(info))
    if (line.rfind(name + ':', 0) == 0) return std::stoull(line.substr(name.size() + 1));
  return std::nullopt;
}

// A resource that checks fencing tokens, as a row updated "... WHERE fence <= :fence" would: it
// refuses a write whose fence is below one it has seen.
class FencedRecord {
 public:
  bool write(std::uint64_t fence) {
    if (fence < highest_fence_) return false;
    highest_fence_ = fence;
    return true;
  }

 private:
  std::uint64_t highest_fence_ = 0;
};

TEST(RedisEviction, AServerThatMayEvictLocksIsNamedInOneWarning) {
  const RedisServer server({"--maxmemory", "64mb", "--maxmemory-policy", "volatile-lru"});
  const CapturedLog log;
  const auto client = Client::connect(server.url());
  // More connections to the same server (the pool grows under concurrent locks) warn no more.
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] { client->acquire(spec("evictable", 5s), i).release(); });
  for (auto& thread : threads) thread.join();

  const auto warnings = log.lines_at(LogLevel::warning);
  ASSERT_EQ(warnings.size(), 1u) << ::testing::PrintToString(log.lines());
  EXPECT_NE(warnings[0].find("volatile-lru"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find(server.url()), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("evict"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("noeviction"), std::string::npos) << warnings[0];
}

TEST(RedisEviction, NoevictionOrNoMaxmemoryIsNoWarning) {
  const RedisServer refuses_when_full({"--maxmemory", "64mb", "--maxmemory-policy", "noeviction"});
  const RedisServer unlimited({"--maxmemory", "0", "--maxmemory-policy", "allkeys-lru"});
  const CapturedLog log;
  for (const RedisServer* server : {&refuses_when_full, &unlimited}) {
    const auto client = Client::connect(server->url());
    EXPECT_TRUE(client->try_acquire(spec("safe", 5s), 1).has_value());
  }
  EXPECT_EQ(log.lines_at(LogLevel::warning), std::vector<std::string>());
  EXPECT_EQ(containing(log.lines(), "evict"), std::vector<std::string>());
}

TEST(RedisEviction, AUserWithoutInfoGetsAWarningAndLocks) {
  const RedisServer server({"--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"});
  // The ACL of docs/guide.md ("Redis, one server"), which has no +info.
  server.cli({"ACL", "SETUSER", "locker", "on", ">pw", "resetchannels", "~distlock:*",
              "&distlock:*", "-@all", "+@scripting", "+@pubsub", "+@read", "+@write", "+time"});
  const CapturedLog log;
  const std::string server_name = "redis://***@127.0.0.1:" + std::to_string(server.port());
  const auto client =
      Client::connect("redis://locker:pw@127.0.0.1:" + std::to_string(server.port()));
  EXPECT_TRUE(client->try_acquire(spec("unchecked", 5s), 1).has_value());

  const auto warnings = log.lines_at(LogLevel::warning);
  ASSERT_EQ(warnings.size(), 1u) << ::testing::PrintToString(log.lines());
  EXPECT_NE(warnings[0].find("could not check whether the server may evict"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("NOPERM"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("+info"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find(server_name), std::string::npos) << warnings[0];
  EXPECT_EQ(warnings[0].find(":pw@"), std::string::npos) << warnings[0];
}

TEST(RedisEviction, EachRedlockMasterThatMayEvictIsNamedOnce) {
  const RedisServer lru({"--maxmemory", "64mb", "--maxmemory-policy", "volatile-lru"});
  const RedisServer random({"--maxmemory", "64mb", "--maxmemory-policy", "allkeys-random"});
  const RedisServer refuses_when_full({"--maxmemory", "64mb", "--maxmemory-policy", "noeviction"});
  const CapturedLog log;
  const auto client = Client::connect("redis+redlock://127.0.0.1:" + std::to_string(lru.port()) +
                                      ",127.0.0.1:" + std::to_string(random.port()) +
                                      ",127.0.0.1:" + std::to_string(refuses_when_full.port()));
  EXPECT_TRUE(client->try_acquire(spec("quorum", 5s), 1).has_value());

  const auto warnings = log.lines_at(LogLevel::warning);
  ASSERT_EQ(warnings.size(), 2u) << ::testing::PrintToString(log.lines());
  ASSERT_EQ(containing(warnings, lru.url() + ":").size(), 1u);
  EXPECT_NE(containing(warnings, lru.url() + ":")[0].find("volatile-lru"), std::string::npos);
  ASSERT_EQ(containing(warnings, random.url() + ":").size(), 1u);
  EXPECT_NE(containing(warnings, random.url() + ":")[0].find("allkeys-random"), std::string::npos);
}

TEST(RedisEviction, TheMasterASentinelNamesIsNamedByItsAddress) {
  SentinelGroup group(0, {"--maxmemory", "64mb", "--maxmemory-policy", "volatile-lfu"});
  const CapturedLog log;
  const auto client = Client::connect(group.url());
  EXPECT_TRUE(client->try_acquire(spec("watched", 5s), 1).has_value());

  const auto warnings = log.lines_at(LogLevel::warning);
  ASSERT_EQ(warnings.size(), 1u) << ::testing::PrintToString(log.lines());
  EXPECT_NE(warnings[0].find(group.url()), std::string::npos) << warnings[0];
  const std::string master = "(master 127.0.0.1:" + std::to_string(group.master().port()) + ")";
  EXPECT_NE(warnings[0].find(master), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("volatile-lfu"), std::string::npos) << warnings[0];
}

// The master a failover promotes is checked as the first was: here a replica that may evict.
TEST(RedisEviction, TheMasterAFailoverPromotesIsCheckedToo) {
  SentinelGroup group(1);
  RedisServer& replica = *group.replicas().front();
  replica.cli({"CONFIG", "SET", "maxmemory", "64mb"});
  replica.cli({"CONFIG", "SET", "maxmemory-policy", "volatile-lru"});
  const CapturedLog log;
  const auto client = Client::connect(group.url());
  EXPECT_TRUE(client->try_acquire(spec("moved", 5s), 1).has_value());
  EXPECT_EQ(containing(log.lines_at(LogLevel::warning), "evict"), std::vector<std::string>());

  RedisServer& promoted = group.fail_over_and_wait(60s);
  ASSERT_EQ(promoted.port(), replica.port());
  // The acquisitions after the move come to the new master, the first of them checks it.
  ASSERT_TRUE(eventually(
      [&] {
        try {
          (void)client->try_acquire(spec("moved", 5s), 2);
        } catch (const BackendUnavailable&) {
          // The move is not known to every part of the client yet.
        }
        return !containing(log.lines_at(LogLevel::warning), "volatile-lru").empty();
      },
      30s))
      << ::testing::PrintToString(log.lines());
  const auto warnings = containing(log.lines_at(LogLevel::warning), "volatile-lru");
  EXPECT_EQ(warnings.size(), 1u) << ::testing::PrintToString(warnings);
  const std::string master = "(master 127.0.0.1:" + std::to_string(promoted.port()) + ")";
  EXPECT_NE(warnings[0].find(master), std::string::npos) << warnings[0];
}

// Writes filler keys with a ttl, a batch per call, until `key` is gone (evicted) or `limit`
// passes; true when it is gone.
bool fill_until_evicted(const RedisServer& server, const std::string& key,
                        std::chrono::seconds limit) {
  // 64 keys of 1 KiB per call; each call's first write makes the server evict down to its
  // maxmemory again.
  const std::string fill =
      "for i = 1, 64 do redis.call('SET', ARGV[1] .. ':' .. i, string.rep('x', 1024), 'EX', "
      "3600) end";
  const auto deadline = Clock::now() + limit;
  for (int batch = 0; Clock::now() < deadline; ++batch) {
    server.cli({"EVAL", fill, "0", "filler:" + std::to_string(batch)});
    if (server.cli({"EXISTS", key}) == "0") return true;
  }
  return false;
}

TEST(RedisEviction, AHolderWhoseLockWasEvictedIsToldAndItsStaleWriteIsRefused) {
  const RedisServer server({"--maxmemory-policy", "volatile-lru"});
  const auto holder = Client::connect(server.url());
  const auto next_holder = Client::connect(server.url());
  const LockSpec lock_spec = spec("evicted", 3s, wait(10s));
  FencedRecord record;

  Lease lease = holder->acquire(lock_spec, 1);
  std::promise<void> lost;
  lease.on_lost([&](const LockLost&) { lost.set_value(); });
  ASSERT_TRUE(record.write(lease.fence()));

  // A little room above what the server uses now, and filler that needs more.
  const auto used_memory = info_field(server.cli({"INFO", "memory"}), "used_memory");
  ASSERT_TRUE(used_memory.has_value());
  ASSERT_EQ(server.cli({"CONFIG", "SET", "maxmemory", std::to_string(*used_memory + 256 * 1024)}),
            "OK");
  ASSERT_TRUE(fill_until_evicted(server, "distlock:{evicted:1}", 60s))
      << "the lock key was never evicted";

  // The holder's next renewal finds the lock gone.
  ASSERT_EQ(lost.get_future().wait_for(30s), std::future_status::ready) << "on_lost never ran";
  EXPECT_FALSE(lease.valid());
  EXPECT_THROW(lease.ensure_held(), LockLost);

  // The next holder gets the lock with a higher fence, and the record refuses the late write of
  // the holder that lost it.
  const Lease next = next_holder->acquire(lock_spec, 1);
  EXPECT_GT(next.fence(), lease.fence());
  EXPECT_TRUE(record.write(next.fence()));
  EXPECT_FALSE(record.write(lease.fence())) << "the stale holder's write went through";
}

}  // namespace
}  // namespace distlock::testing
