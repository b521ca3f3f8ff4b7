// SPDX-License-Identifier: Apache-2.0
// How the Redis backend reaches its server, each against a real redis-server: over a Unix
// socket, in the database the URL names, within max_connections, and across a server that
// forgot the scripts (SCRIPT FLUSH).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

#include "integration_helpers.h"
#include "redis_server.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// The server's client connections that commands go through: not redis-cli asking, and not
// the release listener (which subscribes, or has sent nothing yet: cmd=NULL).
int command_connections(const RedisServer& server) {
  std::istringstream list(server.cli({"CLIENT", "LIST"}));
  int count = 0;
  for (std::string line; std::getline(list, line);)
    if (line.find(" cmd=client") == std::string::npos &&
        line.find(" cmd=NULL") == std::string::npos &&
        line.find("subscribe") == std::string::npos &&
        line.find(" sub=0 psub=0") != std::string::npos)
      ++count;
  return count;
}

TEST(RedisConnection, UnixSocketAndDatabaseFromTheUrl) {
  TempDirectory directory;
  const std::string socket = (directory.path() / "redis.sock").string();
  RedisServer server({"--unixsocket", socket, "--unixsocketperm", "700"});
  auto client = Client::connect("redis+unix://" + socket + "?db=3");
  EXPECT_EQ(client->server(), "redis+unix://" + socket);  // no query: its values may be secrets
  std::uint64_t fence = 0;
  {
    Lease lease = client->acquire(spec("socket", 10s), key_of("a"));
    fence = lease.fence();
    EXPECT_EQ(server.cli({"-n", "3", "HGET", "distlock:{socket:a}", "id"}), lease.id());
    EXPECT_EQ(server.cli({"-n", "0", "EXISTS", "distlock:{socket:a}"}), "0");
  }
  EXPECT_EQ(server.cli({"-n", "3", "EXISTS", "distlock:{socket:a}"}), "0") << "not released";
  EXPECT_EQ(server.cli({"-n", "3", "GET", "distlock:{socket:a}:fence"}), std::to_string(fence));
}

TEST(RedisConnection, DatabaseFromThePath) {
  RedisServer server;
  auto client = Client::connect(server.url() + "/5");
  Lease lease = client->acquire(spec("path-db", 10s));
  EXPECT_EQ(server.cli({"-n", "5", "HGET", "distlock:{path-db}", "id"}), lease.id());
  EXPECT_EQ(server.cli({"-n", "0", "EXISTS", "distlock:{path-db}"}), "0");
}

// More callers than connections: every caller gets through, waiting for a free connection,
// and the client never opens more than max_connections for its commands.
TEST(RedisConnection, NeverMoreThanMaxConnections) {
  RedisServer server;
  auto client = Client::connect(server.url() + "?max_connections=2");
  constexpr int kThreads = 8;
  constexpr int kRounds = 40;
  std::atomic<int> most_seen{0};
  std::atomic<bool> running{true};
  std::thread watcher([&] {
    while (running) {
      const int now = command_connections(server);
      int seen = most_seen.load();
      while (now > seen && !most_seen.compare_exchange_weak(seen, now)) {
      }
    }
  });
  std::vector<std::thread> callers;
  std::atomic<int> done{0};
  for (int t = 0; t < kThreads; ++t)
    callers.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        client->acquire(spec("pool", 10s), key_of(t, i)).release();
        ++done;
      }
    });
  for (auto& caller : callers) caller.join();
  running = false;
  watcher.join();
  EXPECT_EQ(done.load(), kThreads * kRounds);
  EXPECT_LE(most_seen.load(), 2);
  EXPECT_LE(command_connections(server), 2);
  EXPECT_GE(command_connections(server), 1);
}

// The lock commands of all threads go over one connection, which the server reads and answers
// several commands at a time on (design.md, "One connection for the lock commands"): after
// 8 threads acquired and released at once, one connection has run the lock scripts.
TEST(RedisConnection, ThreadsShareOneConnectionForTheLockCommands) {
  RedisServer server;
  auto client = Client::connect(server.url());
  constexpr int kThreads = 8;
  constexpr int kRounds = 40;
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t)
    callers.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        Lease lease = client->acquire(spec("shared", 10s), key_of(t));
        if (i % 2 == 0) lease.release();
      }
    });
  for (auto& caller : callers) caller.join();
  // An awaited release last: it reads the replies the scope exits' releases still owed. The
  // client's courier may have found them owed just before and send its PING for them after it
  // (seen under ThreadSanitizer), on the same connection: there, the PING is the last command
  // CLIENT LIST shows.
  client->acquire(spec("shared", 10s), key_of(kThreads)).release();
  std::istringstream list(server.cli({"CLIENT", "LIST"}));
  int running_scripts = 0;
  for (std::string line; std::getline(list, line);)
    if (line.find(" cmd=evalsha ") != std::string::npos ||
        line.find(" cmd=ping ") != std::string::npos)
      ++running_scripts;
  EXPECT_EQ(running_scripts, 1) << server.cli({"CLIENT", "LIST"});
  EXPECT_EQ(client->stats().lost, 0u);
}

// The server forgets its scripts (SCRIPT FLUSH, as after a restart or a failover to a
// replica without them): acquire, renew and release load them again and go on.
TEST(RedisConnection, ScriptsFlushedOnTheServerAreLoadedAgain) {
  RedisServer server;
  auto client = Client::connect(server.url());
  client->acquire(spec("flushed", 10s), key_of(1)).release();

  server.cli({"SCRIPT", "FLUSH"});
  Lease lease = client->acquire(spec("flushed", 600ms), key_of(2));
  EXPECT_EQ(server.cli({"HGET", "distlock:{flushed:2}", "id"}), lease.id());

  server.cli({"SCRIPT", "FLUSH"});
  const auto renewals = client->stats().renewals;
  ASSERT_TRUE(eventually([&] { return client->stats().renewals > renewals; }))
      << "no renewal after the scripts were flushed";
  EXPECT_TRUE(lease.valid());
  EXPECT_EQ(client->stats().renewal_failures, 0u);
  EXPECT_EQ(client->stats().lost, 0u);

  server.cli({"SCRIPT", "FLUSH"});
  EXPECT_NO_THROW(lease.release());
  EXPECT_EQ(server.cli({"EXISTS", "distlock:{flushed:2}"}), "0");
}

}  // namespace
}  // namespace distlock::testing
