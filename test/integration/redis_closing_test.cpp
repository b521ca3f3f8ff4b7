// SPDX-License-Identifier: Apache-2.0
// Closing a Redis connection never waits for the replies it still owes: the thread that drops
// one may be the renewal thread, whose leases end by their own clock, and a connection is often
// dropped because the network failed, when every read would wait its full command_timeout.
// The handlers of those replies hear at once that they will not come (a scope exit's release
// then goes to the courier, which sends it again: release_courier.h).
#include <poll.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string_view>

#include <gtest/gtest.h>

#include "backends/redis/transport/connection.h"
#include "backends/redis/transport/shared_connection.h"
#include "redis_server.h"
#include "tcp_proxy.h"

namespace distlock::detail::redis {
namespace {

using namespace std::chrono_literals;
using testing::RedisServer;
using testing::TcpProxy;

// Replies are awaited far longer than the tests wait for the closing.
ConnectionSettings settings_through(const TcpProxy& proxy) {
  ConnectionSettings settings;
  settings.server = "redis://" + proxy.address();
  settings.address = Address{"127.0.0.1", proxy.port(), {}};
  settings.connect_timeout = Millis(5000);
  settings.command_timeout = Millis(120'000);
  return settings;
}

constexpr auto kClosedAtOnce = 30s;

TEST(RedisClosing, AConnectionOwingRepliesClosesWithoutWaitingAndTellsTheHandlers) {
  RedisServer server;
  TcpProxy proxy(server.port());
  const ConnectionSettings settings = settings_through(proxy);
  auto connection = std::make_unique<Connection>(settings, settings.address);
  std::atomic<int> told_no_reply{0};
  proxy.freeze();
  for (const std::string_view key : {"a", "b"}) {
    const std::string_view set[] = {"SET", key, "1"};
    connection->send_unawaited({set}, [&](Connection&, const redisReply* reply) {
      if (reply == nullptr) ++told_no_reply;
    });
  }
  auto closing = std::async(std::launch::async, [&] { connection.reset(); });
  ASSERT_EQ(closing.wait_for(kClosedAtOnce), std::future_status::ready)
      << "closing waited for the replies of a server that does not answer";
  EXPECT_EQ(told_no_reply, 2);
}

TEST(RedisClosing, TheSharedConnectionClosesWithoutWaitingAndTellsTheHandler) {
  RedisServer server;
  TcpProxy proxy(server.port());
  const ConnectionSettings settings = settings_through(proxy);
  auto connection = std::make_unique<SharedConnection>(settings, settings.address, 0);
  std::atomic<int> told_no_reply{0};
  proxy.freeze();
  const std::string_view set[] = {"SET", "shared", "1"};
  connection->send_unawaited({set}, [&](SharedConnection&, const redisReply* reply) {
    if (reply == nullptr) ++told_no_reply;
  });
  auto closing = std::async(std::launch::async, [&] { connection.reset(); });
  ASSERT_EQ(closing.wait_for(kClosedAtOnce), std::future_status::ready)
      << "closing waited for the reply of a server that does not answer";
  EXPECT_EQ(told_no_reply, 1);
}

// A connection the server closed while it sat idle (its `timeout`) is found closed before a
// command is written into it, where the command would never run: the pool drops it, and the
// shared connection fails the command at once as broken, which the backend retries on a new one.
TEST(RedisClosing, AConnectionTheServerClosedWhileIdleIsFoundClosed) {
  RedisServer server;
  TcpProxy proxy(server.port());
  const ConnectionSettings settings = settings_through(proxy);
  Connection connection(settings, settings.address);
  // A round trip: the proxy has taken the connection in, so cut_all() finds it.
  const std::string_view ping[] = {"PING"};
  ASSERT_EQ(reply_text(*connection.command(ping)), "PONG");
  EXPECT_FALSE(connection.found_closed());
  proxy.cut_all();
  pollfd closed{connection.stream().fd(), POLLIN | POLLRDHUP, 0};
  ASSERT_EQ(::poll(&closed, 1, 30'000), 1) << "the close never reached the client";
  EXPECT_TRUE(connection.found_closed());
  EXPECT_TRUE(connection.broken());
}

}  // namespace
}  // namespace distlock::detail::redis
