// SPDX-License-Identifier: Apache-2.0
// The runtime's logger: replaced by set_logger, and usable until the process ends, including
// from destructors of objects with static storage (the default client is one: destroying a
// ZooKeeper client logs, at exit).
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <distlock/log.h>

namespace distlock {
namespace {

TEST(Log, SetLoggerReplacesTheDefault) {
  std::vector<std::string> seen;
  set_logger([&](LogLevel level, std::string_view message) {
    if (level == LogLevel::warning) seen.emplace_back(message);
  });
  detail::log(LogLevel::warning, "first");
  detail::log(LogLevel::debug, "not kept");
  set_logger({});
  detail::log(LogLevel::warning, "silenced");
  EXPECT_EQ(seen, std::vector<std::string>{"first"});
}

struct LogsWhenDestroyed {
  ~LogsWhenDestroyed() { detail::log(LogLevel::warning, "logged during static destruction"); }
};

// `early` is constructed before the logger's own state (the first log call comes after), so
// it is destroyed after that state would be, if that state were destroyed at exit.
TEST(LogDeathTest, LogsFromStaticDestructors) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        static LogsWhenDestroyed early;
        detail::log(LogLevel::warning, "before exit");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "logged during static destruction");
}

}  // namespace
}  // namespace distlock
