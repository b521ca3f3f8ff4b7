// SPDX-License-Identifier: Apache-2.0
// The Redis version check (runtime/backends/redis/transport/server_version.h) on the replies HELLO
// gets from servers of each age, as the bytes such a server sends: Debian 12 ships only Redis 7, so
// the integration tests meet the accepting side only.
#include "backends/redis/transport/server_version.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backends/redis/transport/reply.h"

namespace distlock::detail::redis {
namespace {

// The reply hiredis makes of `resp`, a whole RESP2 reply.
Reply parsed(const std::string& resp) {
  const std::unique_ptr<redisReader, decltype(&redisReaderFree)> reader(redisReaderCreate(),
                                                                        &redisReaderFree);
  EXPECT_EQ(redisReaderFeed(reader.get(), resp.data(), resp.size()), REDIS_OK);
  void* reply = nullptr;
  EXPECT_EQ(redisReaderGetReply(reader.get(), &reply), REDIS_OK);
  EXPECT_NE(reply, nullptr) << resp;
  return Reply(static_cast<redisReply*>(reply));
}

std::string bulk(const std::string& text) {
  return "$" + std::to_string(text.size()) + "\r\n" + text + "\r\n";
}

// HELLO 2's answer from a server of `version`, in the shape Redis gives it.
Reply hello_from(const std::string& version) {
  return parsed("*6\r\n" + bulk("server") + bulk("redis") + bulk("version") + bulk(version) +
                bulk("proto") + ":2\r\n");
}

TEST(RedisServerVersion, ParsesThreeNumbers) {
  const auto version = parse_redis_version("7.0.15");
  ASSERT_TRUE(version);
  EXPECT_EQ(version->major, 7);
  EXPECT_EQ(version->minor, 0);
  EXPECT_EQ(version->patch, 15);
  EXPECT_FALSE(parse_redis_version(""));
  EXPECT_FALSE(parse_redis_version("7.0"));
  EXPECT_FALSE(parse_redis_version("7.0.15-rc1"));
  EXPECT_FALSE(parse_redis_version("7..15"));
  EXPECT_FALSE(parse_redis_version("v7.0.15"));
}

TEST(RedisServerVersion, OrdersByMajorThenMinorThenPatch) {
  EXPECT_TRUE((RedisVersion{6, 0, 16} < kOldestRedis));
  EXPECT_TRUE((RedisVersion{5, 9, 99} < RedisVersion{6, 0, 0}));
  EXPECT_FALSE((RedisVersion{6, 2, 0} < kOldestRedis));
  EXPECT_FALSE((RedisVersion{7, 0, 0} < RedisVersion{6, 9, 9}));
}

TEST(RedisServerVersion, AcceptsRedis62AndLater) {
  EXPECT_EQ(unsupported_version(*hello_from("6.2.0")), std::nullopt);
  EXPECT_EQ(unsupported_version(*hello_from("7.0.15")), std::nullopt);
  // Redis's unstable branch calls itself 255.255.255.
  EXPECT_EQ(unsupported_version(*hello_from("255.255.255")), std::nullopt);
}

TEST(RedisServerVersion, RefusesRedis60And61SayingWhatItNeeds) {
  const auto reason = unsupported_version(*hello_from("6.0.16"));
  ASSERT_TRUE(reason);
  EXPECT_EQ(*reason,
            "the server is Redis 6.0.16; distlock needs Redis 6.2.0 or later (its scripts use "
            "SET ... GET and ZADD ... GT)");
  EXPECT_TRUE(unsupported_version(*hello_from("6.1.99")));
}

TEST(RedisServerVersion, RefusesAServerThatDoesNotKnowHello) {
  // Redis 5.0's answer.
  const auto reason = unsupported_version(
      *parsed("-ERR unknown command `HELLO`, with args beginning with: `2`, \r\n"));
  ASSERT_TRUE(reason);
  EXPECT_NE(reason->find("does not know HELLO (Redis before 6.0)"), std::string::npos) << *reason;
}

TEST(RedisServerVersion, LeavesAServerThatDoesNotSayToTheScripts) {
  EXPECT_EQ(unsupported_version(*parsed("-NOPERM this user has no permissions\r\n")), std::nullopt);
  EXPECT_EQ(unsupported_version(*hello_from("unknown")), std::nullopt);
  EXPECT_EQ(unsupported_version(*parsed("*2\r\n" + bulk("server") + bulk("proxy"))), std::nullopt);
  EXPECT_EQ(unsupported_version(*parsed("+OK\r\n")), std::nullopt);
}

}  // namespace
}  // namespace distlock::detail::redis
