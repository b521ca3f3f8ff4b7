// SPDX-License-Identifier: Apache-2.0
// The runtime's logger: replaced by set_logger, and usable until the process ends, including
// from destructors of objects with static storage (the default client is one: destroying a
// ZooKeeper client logs, at exit).
#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <distlock/log.h>

#include "util/secret_filter.h"

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

// A logger may capture what its owner destroys right after replacing it (a test's captured
// lines): set_logger must not return while another thread is inside the replaced logger.
// A line that quotes a secret of a living SecretFilter (a library's message naming its hosts)
// is logged with "***" in its place; once the filter is gone the text passes as it is.
TEST(Log, TheSecretsOfALivingFilterNeverReachTheLogger) {
  std::vector<std::string> seen;
  set_logger([&](LogLevel, std::string_view message) { seen.emplace_back(message); });
  {
    const detail::SecretFilter filter({"pwS3cret", "pwS3cret-longer", "abc"});
    detail::log(LogLevel::warning, "host=pwS3cret-longer:2181 then pwS3cret, abc");
  }
  detail::log(LogLevel::warning, "pwS3cret");
  set_logger({});
  EXPECT_EQ(seen, (std::vector<std::string>{"host=***:2181 then ***, abc", "pwS3cret"}));
}

TEST(Log, SetLoggerWaitsForCallsOfTheReplacedLoggerToEnd) {
  std::promise<void> entered;
  std::promise<void> may_return;
  std::shared_future<void> may_return_future = may_return.get_future().share();
  set_logger([&](LogLevel, std::string_view) {
    entered.set_value();
    may_return_future.wait();
  });
  std::thread logging([] { detail::log(LogLevel::warning, "slow"); });
  entered.get_future().wait();
  auto replaced = std::async(std::launch::async, [] { set_logger({}); });
  // Nothing can signal that set_logger is waiting; a bounded wait shows it has not returned.
  EXPECT_EQ(replaced.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  may_return.set_value();
  replaced.get();
  logging.join();
}

TEST(Log, ALoggerMayReplaceItselfAndLogWhileRunning) {
  std::vector<std::string> seen;
  set_logger([&](LogLevel, std::string_view message) {
    if (message == "first") {
      detail::log(LogLevel::warning, "nested");
      set_logger([&](LogLevel, std::string_view later) { seen.emplace_back(later); });
    }
    seen.emplace_back(message);
  });
  detail::log(LogLevel::warning, "first");
  detail::log(LogLevel::warning, "second");
  set_logger({});
  EXPECT_EQ(seen, (std::vector<std::string>{"nested", "first", "second"}));
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
