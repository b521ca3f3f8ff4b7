// SPDX-License-Identifier: Apache-2.0
// default_client(): configure(url), else $DISTLOCK_URL, else redis://127.0.0.1:6379. Each case
// runs in a child process of its own (a death test), as the default client is the process's.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

namespace distlock {
namespace {

class DefaultClientDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

// Reports on stderr which server the default client names (or failed to reach) and exits.
[[noreturn]] void report_default_client() {
  try {
    std::fprintf(stderr, "connected: %s\n", default_client().server().c_str());
  } catch (const BackendUnavailable& error) {
    std::fprintf(stderr, "unavailable: %s | %s\n", error.server().c_str(), error.what());
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "config error: %s\n", error.what());
  }
  std::exit(0);
}

TEST_F(DefaultClientDeathTest, WithoutConfigurationOrEnvironmentItIsTheLocalRedis) {
  // Nothing listens on 6379 on a test machine, but if something does it must be named too.
  EXPECT_EXIT(
      {
        ::unsetenv("DISTLOCK_URL");
        report_default_client();
      },
      ::testing::ExitedWithCode(0), "(connected|unavailable): redis://127.0.0.1:6379");
}

TEST_F(DefaultClientDeathTest, AnEmptyEnvironmentVariableCountsAsUnset) {
  EXPECT_EXIT(
      {
        ::setenv("DISTLOCK_URL", "", 1);
        report_default_client();
      },
      ::testing::ExitedWithCode(0), "(connected|unavailable): redis://127.0.0.1:6379");
}

TEST_F(DefaultClientDeathTest, TheEnvironmentVariableNamesTheServer) {
  EXPECT_EXIT(
      {
        ::setenv("DISTLOCK_URL", "memory://from-environment", 1);
        report_default_client();
      },
      ::testing::ExitedWithCode(0), "connected: memory://from-environment");
}

TEST_F(DefaultClientDeathTest, AnInvalidEnvironmentVariableIsAConfigErrorNamingIt) {
  EXPECT_EXIT(
      {
        ::setenv("DISTLOCK_URL", "redis://127.0.0.1:port", 1);
        report_default_client();
      },
      // Its hosts as "***": "127.0.0.1:port" may be "user:password" with its '@' forgotten.
      ::testing::ExitedWithCode(0), "config error: .*redis://\\*\\*\\*: bad URL: a port is not");
}

TEST_F(DefaultClientDeathTest, ConfigureWinsOverTheEnvironment) {
  EXPECT_EXIT(
      {
        ::setenv("DISTLOCK_URL", "memory://from-environment", 1);
        configure("memory://configured");
        report_default_client();
      },
      ::testing::ExitedWithCode(0), "connected: memory://configured");
}

TEST_F(DefaultClientDeathTest, ConfigureOnceInUseIsRefused) {
  EXPECT_EXIT(
      {
        configure("memory://first");
        default_client();
        try {
          configure("memory://second");
        } catch (const ConfigError& error) {
          std::fprintf(stderr, "refused: %s\n", error.what());
        }
        report_default_client();
      },
      ::testing::ExitedWithCode(0), "refused: .*already in use(.|\n)*connected: memory://first");
}

}  // namespace
}  // namespace distlock
