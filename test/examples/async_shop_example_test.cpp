// SPDX-License-Identifier: Apache-2.0
// examples/async_shop against a private redis-server: woven, its coroutines on one thread make
// every reservation without losing one; built without weaving, the same run loses updates,
// which shows the locks are what prevents it.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>

#include "redis_server.h"
#include "subprocess.h"

namespace {

using distlock::testing::RedisServer;
using distlock::testing::Subprocess;

struct ShopRun {
  std::string output;
  bool succeeded = false;
};

ShopRun run_shop(const char* program, const std::string& url) {
  Subprocess shop(program, {"--url", url, "--coroutines", "200", "--reservations", "5", "--skus",
                            "10", "--work-us", "200"});
  ShopRun run;
  run.output = shop.read_all(std::chrono::seconds(120));
  run.succeeded = shop.wait(std::chrono::seconds(10)).success();
  return run;
}

int lost_updates(const std::string& output) {
  std::smatch found;
  if (!std::regex_search(output, found, std::regex("lost updates (-?[0-9]+)\n"))) return -1;
  return std::stoi(found[1]);
}

TEST(AsyncShopExample, WovenCoroutinesOnOneThreadLoseNoUpdateOnRedis) {
  RedisServer server;
  const ShopRun run = run_shop(DISTLOCK_EXAMPLE_ASYNC_SHOP, server.url());
  ASSERT_TRUE(run.succeeded) << run.output;
  EXPECT_NE(run.output.find("coroutines 200 on one thread, reservations made 1000 in"),
            std::string::npos)
      << run.output;
  EXPECT_EQ(lost_updates(run.output), 0) << run.output;
}

TEST(AsyncShopExample, UnwovenTheSameRunLosesUpdates) {
  RedisServer server;
  const ShopRun run = run_shop(DISTLOCK_EXAMPLE_ASYNC_SHOP_UNWOVEN, server.url());
  ASSERT_TRUE(run.succeeded) << run.output;
  EXPECT_GT(lost_updates(run.output), 0) << run.output;
}

}  // namespace
