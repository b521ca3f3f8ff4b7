// The woven shop example end to end: several processes of it against a private
// redis-server. Built through distlock_weave(), every reservation takes its lock and none is
// lost; built from the same sources without weaving, nothing locks.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>

#include "redis_server.h"
#include "subprocess.h"

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

std::string run_shop(const char* program, const RedisServer& server, int processes,
                     int reservations) {
  Subprocess shop(program, {"run", "--url", server.url(), "--processes", std::to_string(processes),
                            "--reservations", std::to_string(reservations), "--skus", "2"});
  std::string output = shop.read_all(std::chrono::seconds(90));
  const auto status = shop.wait(std::chrono::seconds(10));
  EXPECT_TRUE(status.success()) << program << ": " << status.describe() << "\n" << output;
  return "\n" + output;
}

TEST(WovenExample, EveryReservationRunsUnderItsLockAndNoneIsLost) {
  RedisServer server;
  const std::string output = run_shop(DISTLOCK_SHOP, server, 3, 40);
  EXPECT_EQ(figure(output, "locks taken"), 120);
  EXPECT_EQ(figure(output, "reservations done"), 120);
  EXPECT_EQ(figure(output, "lost updates"), 0);
  EXPECT_EQ(figure(output, "stale writes refused"), 0);
  // The lock names come from the key path: "stock:<sku>".
  EXPECT_GT(std::stoll(server.cli({"GET", "distlock:{stock:sku-0}:fence"})), 0);
  EXPECT_GT(std::stoll(server.cli({"GET", "distlock:{stock:sku-1}:fence"})), 0);
}

TEST(WovenExample, TheSameSourcesUnwovenTakeNoLock) {
  RedisServer server;
  const std::string output = run_shop(DISTLOCK_SHOP_UNWOVEN, server, 2, 10);
  EXPECT_EQ(figure(output, "locks taken"), 0);
  EXPECT_EQ(figure(output, "reservations done"), 20);
  EXPECT_EQ(server.cli({"EXISTS", "distlock:{stock:sku-0}:fence"}), "0");
}

}  // namespace
