// SPDX-License-Identifier: Apache-2.0
// A password in the URL never shows: not in any error's what() or server(), nor in a log
// line. Each case below reaches one throw site of the runtime with a URL that holds one
// (bad URLs and options, unreachable, mute and stopped servers, wrong passwords, waits that
// run out, leases lost, keys too long, modes the backend lacks, ZooKeeper's own refusals).
#include <signal.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

#include "captured_log.h"
#include "integration_helpers.h"
#include "redis_server.h"
#ifdef DISTLOCK_TEST_ZOOKEEPER
#include "zookeeper_helpers.h"
#include "zookeeper_server.h"
#endif

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kPassword = "s3cret-pw";

class Redaction : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const auto& line : log_.lines())
      EXPECT_EQ(line.find(kPassword), std::string::npos) << "logged: " << line;
  }

  // Runs `throwing`, which must throw a distlock::Error of type E, and checks it.
  template <class E>
  void expect_redacted(const std::string& what, const std::function<void()>& throwing) {
    SCOPED_TRACE(what);
    try {
      throwing();
      ADD_FAILURE() << "nothing thrown";
    } catch (const E& error) {
      check(error);
    } catch (const Error& error) {
      ADD_FAILURE() << "another distlock::Error: " << error.what();
      check(error);
    }
  }

  static void check(const Error& error) {
    EXPECT_EQ(std::string(error.what()).find(kPassword), std::string::npos) << error.what();
    EXPECT_EQ(error.server().find(kPassword), std::string::npos) << error.server();
    EXPECT_EQ(error.reason().find(kPassword), std::string::npos) << error.reason();
  }

  CapturedLog log_;
};

TEST_F(Redaction, BadUrlsAndOptions) {
  const std::string user = std::string("alice:") + kPassword + "@";
  expect_redacted<ConfigError>("bad port", [&] { Client::connect("redis://" + user + "h:port"); });
  expect_redacted<ConfigError>("bad query value", [&] {
    Client::connect("redis://" + user + "127.0.0.1:1?connect_timeout=soon");
  });
  expect_redacted<ConfigError>("unknown query parameter", [&] {
    Client::connect("redis://" + user + "127.0.0.1:1?colour=blue");
  });
  expect_redacted<ConfigError>("bad database",
                               [&] { Client::connect("redis://" + user + "127.0.0.1:1/db"); });
  expect_redacted<ConfigError>("unknown scheme", [&] { Client::connect("mongo://" + user + "h"); });
  expect_redacted<ConfigError>("memory with a user",
                               [&] { Client::connect("memory://" + user + "x"); });
  expect_redacted<ConfigError>("zookeeper option", [&] {
    Client::connect("zookeeper://" + user + "127.0.0.1:1?session_timeout=long");
  });
  expect_redacted<ConfigError>("bad renew_fraction", [&] {
    Options options;
    options.renew_fraction = 2;
    Client::connect("redis://" + user + "127.0.0.1:1", options);
  });
  expect_redacted<ConfigError>("bad renew_fraction and a bad URL", [&] {
    Options options;
    options.renew_fraction = 0;
    Client::connect("redis://" + user + "h:port", options);
  });
}

TEST_F(Redaction, UnreachableAndMuteRedis) {
  const std::string user = std::string("alice:") + kPassword + "@";
  expect_redacted<BackendUnavailable>("nobody listening", [&] {
    Client::connect("redis://" + user + "127.0.0.1:" + std::to_string(free_loopback_port()) +
                    "?connect_timeout=300ms");
  });

  RedisServer server({"--requirepass", kPassword});
  const std::string port = std::to_string(server.port());
  expect_redacted<BackendUnavailable>("wrong password", [&] {
    Client::connect("redis://:wrong-" + std::string(kPassword) + "@127.0.0.1:" + port);
  });

  auto client = Client::connect("redis://:" + std::string(kPassword) + "@127.0.0.1:" + port +
                                "?command_timeout=300ms");
  ASSERT_EQ(client->server().find(kPassword), std::string::npos) << client->server();
  ASSERT_EQ(::kill(server.pid(), SIGSTOP), 0);
  expect_redacted<BackendUnavailable>("stopped server",
                                      [&] { client->acquire(spec("mute", 5s, wait(1s))); });
  ASSERT_EQ(::kill(server.pid(), SIGCONT), 0);
}

TEST_F(Redaction, LocksOnRedis) {
  RedisServer server({"--requirepass", kPassword});
  const std::string url =
      "redis://:" + std::string(kPassword) + "@127.0.0.1:" + std::to_string(server.port());
  auto client = Client::connect(url);
  auto other = Client::connect(url);

  Lease held = client->acquire(spec("order", 5s), key_of(1));
  expect_redacted<LockTimeout>("try_only",
                               [&] { other->acquire(spec("order", 5s, try_only), key_of(1)); });
  expect_redacted<LockTimeout>("wait ran out",
                               [&] { other->acquire(spec("order", 5s, wait(100ms)), key_of(1)); });
  const Lease reading = client->acquire(spec("order", 5s, distlock::read), key_of(2));
  expect_redacted<ConfigError>("a read lock upgraded", [&] {
    client->acquire(spec("order", 5s, distlock::write), key_of(2));
  });
  expect_redacted<ConfigError>("lock name too long",
                               [&] { client->acquire(spec("order", 5s), std::string(2000, 'k')); });

  Event lost;
  held.on_lost([&](const LockLost& error) {
    check(error);
    lost.set(error.what());
  });
  server.cli({"DEL", "distlock:{order:1}"});
  ASSERT_TRUE(lost.wait_for(30s));
  expect_redacted<LockLost>("ensure_held", [&] { held.ensure_held(); });
  expect_redacted<LockLost>("checked", [&] {
    checked(
        held, [] { return 0; }, [](int) {});
  });
  expect_redacted<LockLost>("release", [&] { held.release(); });
}

// 0 when configure() refused a second URL once the default client was in use, naming neither
// the password in its message nor in its server; 1 when it named it; 2 when it was not refused.
// The server is gone when it returns, so that the death test's exit leaves no directory behind.
int configure_twice_with_a_password() {
  RedisServer server({"--requirepass", kPassword});
  configure("redis://:" + std::string(kPassword) + "@127.0.0.1:" + std::to_string(server.port()));
  default_client();
  try {
    configure("memory://");
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "%s | %s\n", error.what(), error.server().c_str());
    return std::string(error.what()).find(kPassword) == std::string::npos &&
                   error.server().find(kPassword) == std::string::npos
               ? 0
               : 1;
  }
  return 2;
}

TEST(RedactionDeathTest, ConfigureOnceTheDefaultClientIsInUse) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(configure_twice_with_a_password()), ::testing::ExitedWithCode(0),
              "already in use");
}

#ifdef DISTLOCK_TEST_ZOOKEEPER
TEST_F(Redaction, ZooKeeper) {
  const std::string user = std::string("alice:") + kPassword + "@";
  expect_redacted<BackendUnavailable>("nobody listening", [&] {
    Client::connect("zookeeper://" + user + "127.0.0.1:" + std::to_string(free_loopback_port()) +
                    "?connect_timeout=500ms");
  });

  ZooKeeperServer server;
  const std::string host = "127.0.0.1:" + std::to_string(server.port());
  expect_redacted<ConfigError>("missing chroot", [&] {
    Client::connect(with_session_timeout("zookeeper://" + user + host + "/no/such/chroot"));
  });

  auto alice = Client::connect(with_session_timeout("zookeeper://" + user + host));
  auto bob = Client::connect(
      with_session_timeout("zookeeper://bob:other-" + std::string(kPassword) + "@" + host));
  Lease held = alice->acquire(spec("secured", 5s), key_of(1));
  expect_redacted<ConfigError>("another user's lock",
                               [&] { bob->acquire(spec("secured", 5s, try_only), key_of(1)); });
  expect_redacted<LockTimeout>("try_only", [&] {
    Client::connect(with_session_timeout("zookeeper://" + user + host))
        ->acquire(spec("secured", 5s, try_only), key_of(1));
  });
  Lease read = alice->acquire(spec("shared", 5s, distlock::read), key_of(2));
  expect_redacted<ConfigError>("read lock upgraded", [&] {
    alice->acquire(spec("shared", 5s, distlock::write), key_of(2));
  });
}
#endif

}  // namespace
}  // namespace distlock::testing
