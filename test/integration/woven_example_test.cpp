// SPDX-License-Identifier: Apache-2.0
// The woven shop example end to end: several processes of it against a private
// redis-server. Built through distlock_weave(), every reservation takes its lock and none is
// lost; built from the same sources without weaving, nothing locks and updates are lost.
// Woven, it locks on ZooKeeper as well.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>

#include "redis_server.h"
#include "subprocess.h"
#ifdef DISTLOCK_TEST_ZOOKEEPER
#include "zookeeper_server.h"
#endif

namespace {

using distlock::testing::RedisServer;
using distlock::testing::Subprocess;

long figure(const std::string& output, const std::string& label) {
  std::smatch match;
  const std::regex line("\\n  " + label + " +([0-9-]+)");
  if (!std::regex_search(output, match, line)) {
    ADD_FAILURE() << "no '" << label << "' in the output:\n" << output;
    return -1;
  }
  return std::stol(match[1]);
}

std::string run_shop(const char* program, const std::string& url, int processes, int reservations) {
  Subprocess shop(program, {"run", "--url", url, "--processes", std::to_string(processes),
                            "--reservations", std::to_string(reservations), "--skus", "2"});
  std::string output = shop.read_all(std::chrono::seconds(90));
  const auto status = shop.wait(std::chrono::seconds(10));
  EXPECT_TRUE(status.success()) << program << ": " << status.describe() << "\n" << output;
  return "\n" + output;
}

// One workload, run built both ways against one server: the control shows that the workload
// does lose updates without the locks, so the woven run's 0 means the locks held it together.
TEST(WovenExample, WovenLosesNothingWhereTheSameSourcesUnwovenLoseUpdates) {
  RedisServer server;
  const std::string woven = run_shop(DISTLOCK_SHOP, server.url(), 3, 40);
  EXPECT_EQ(figure(woven, "locks taken"), 120);
  EXPECT_EQ(figure(woven, "reservations done"), 120);
  EXPECT_EQ(figure(woven, "lost updates"), 0);
  EXPECT_EQ(figure(woven, "stale writes refused"), 0);
  // The lock names come from the key path: "stock:<sku>".
  const auto fence_of_sku0 = std::stoll(server.cli({"GET", "distlock:{stock:sku-0}:fence"}));
  EXPECT_GT(fence_of_sku0, 0);
  EXPECT_GT(std::stoll(server.cli({"GET", "distlock:{stock:sku-1}:fence"})), 0);

  const std::string unwoven = run_shop(DISTLOCK_SHOP_UNWOVEN, server.url(), 3, 40);
  EXPECT_EQ(figure(unwoven, "locks taken"), 0);
  EXPECT_EQ(figure(unwoven, "reservations done"), 120);
  EXPECT_GT(figure(unwoven, "lost updates"), 0)
      << "the control lost nothing: this workload cannot show what the locks prevent";
  EXPECT_EQ(std::stoll(server.cli({"GET", "distlock:{stock:sku-0}:fence"})), fence_of_sku0)
      << "the unwoven build took a lock";
}

#ifdef DISTLOCK_TEST_ZOOKEEPER
// The same woven code against ZooKeeper: the guard does not know its backend.
TEST(WovenExample, WovenCodeLocksOnZooKeeperToo) {
  distlock::testing::ZooKeeperServer server;
  const std::string woven = run_shop(DISTLOCK_SHOP, server.url(), 3, 20);
  EXPECT_EQ(figure(woven, "locks taken"), 60);
  EXPECT_EQ(figure(woven, "reservations done"), 60);
  EXPECT_EQ(figure(woven, "lost updates"), 0);
  EXPECT_GT(figure(woven, "waited for a lock"), 0) << "the processes never contended";
}
#endif

}  // namespace
