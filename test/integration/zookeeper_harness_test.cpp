// SPDX-License-Identifier: Apache-2.0
// The ZooKeeper test harness itself (test/support): a standalone server that stops and
// restarts with its data, an ensemble that elects a new leader when its leader dies, the
// plain client, and the proxy's cuts. None of it needs distlock's ZooKeeper backend.
#include <gtest/gtest.h>
#include <signal.h>
#include <zookeeper/zookeeper.h>

#include <chrono>
#include <string>

#include "integration_helpers.h"
#include "tcp_proxy.h"
#include "zookeeper_client.h"
#include "zookeeper_server.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

TEST(ZooKeeperHarness, StandaloneServerRestartsWithItsDataAndSessions) {
  ZooKeeperServer server;
  EXPECT_EQ(server.mode(), "standalone");
  EXPECT_EQ(server.url(), "zookeeper://127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(server.four_letter("ruok"), "imok");

  ZooKeeperClient client(server.connect_string(), 6s);
  const std::int64_t session = client.session_id();
  client.create("/harness", "x");
  const std::string ephemeral = client.create("/harness/e-", "", ZOO_EPHEMERAL | ZOO_SEQUENCE);
  EXPECT_EQ(ephemeral, "/harness/e-0000000000");

  server.stop();
  EXPECT_FALSE(server.running());
  EXPECT_FALSE(server.four_letter("srvr").has_value()) << "a stopped server answered";
  server.start();
  EXPECT_TRUE(server.running());
  EXPECT_EQ(server.mode(), "standalone");

  // The client reconnects within its session: the session and its ephemeral node live on.
  EXPECT_EQ(client.data("/harness"), "x");
  EXPECT_EQ(client.children("/harness"), std::vector<std::string>{"e-0000000000"});
  EXPECT_EQ(client.session_id(), session);
  const auto stat = client.stat(ephemeral);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->ephemeral_owner, session);
}

TEST(ZooKeeperHarness, EmptyContainerNodesAreRemovedWithinSeconds) {
  ZooKeeperConfig config;
  config.container_check_interval = std::chrono::milliseconds(500);
  ZooKeeperServer server(config);
  ZooKeeperClient client(server.connect_string(), 6s);
  client.create("/container", "", ZOO_CONTAINER);
  client.create("/plain");
  const std::string child = client.create("/container/child-", "", ZOO_EPHEMERAL | ZOO_SEQUENCE);
  ASSERT_EQ(client.remove(child), ZOK);
  // A container that had a child and has none left goes; a plain node stays.
  EXPECT_TRUE(eventually([&] { return !client.stat("/container").has_value(); }, 10s));
  EXPECT_TRUE(client.stat("/plain").has_value());
}

TEST(ZooKeeperHarness, FrozenProxyLetsTheSessionBehindItExpire) {
  ZooKeeperServer server;
  TcpProxy proxy(server.port());
  ZooKeeperClient watcher(server.connect_string(), 20s);
  ZooKeeperClient partitioned(proxy.address(), 2s);
  partitioned.create("/expiry");
  const std::string node = partitioned.create("/expiry/e-", "", ZOO_EPHEMERAL | ZOO_SEQUENCE);
  std::optional<NodeStat> stat;
  auto gone = watcher.watch(node, &stat);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->ephemeral_owner, partitioned.session_id());

  // A partition: the server hears nothing from the session and expires it, which deletes
  // its ephemeral node. The deletion ends the partition; nothing waits for a fixed time.
  const auto start = Clock::now();
  proxy.freeze();
  const auto event = gone->wait_for(20s);
  proxy.thaw();
  ASSERT_TRUE(event.has_value()) << "the ephemeral node of a partitioned session never went away";
  EXPECT_EQ(event->type, ZOO_DELETED_EVENT);
  EXPECT_GE(event->seen_at - start, 1s) << "expired long before its 2 s session timeout";
  EXPECT_TRUE(watcher.children("/expiry").empty());
}

TEST(ZooKeeperHarness, EnsembleElectsANewLeaderWhenTheLeaderDies) {
  ZooKeeperEnsemble ensemble;
  const int leader = ensemble.leader();
  int followers = 0;
  for (int i = 0; i < ZooKeeperEnsemble::kSize; ++i) {
    if (i != leader) followers += ensemble.server(i).mode() == "follower" ? 1 : 0;
  }
  EXPECT_EQ(followers, 2);

  ZooKeeperClient client(ensemble.connect_string(), 10s);
  client.create("/ensemble", "before");

  ensemble.kill(leader);
  EXPECT_FALSE(ensemble.server(leader).running());
  const int next = ensemble.leader();
  EXPECT_NE(next, leader);
  // The client may have been connected to the dead leader: it reconnects to another server.
  std::string data;
  EXPECT_TRUE(eventually(
      [&] {
        try {
          data = client.data("/ensemble");
          return true;
        } catch (const ZooKeeperError&) {
          return false;
        }
      },
      20s));
  EXPECT_EQ(data, "before") << "the committed node is gone";

  ensemble.restart(leader);
  ensemble.await_quorum();
  EXPECT_EQ(ensemble.server(leader).mode(), "follower") << "the old leader rejoins as follower";
  ZooKeeperClient direct(ensemble.server(leader).connect_string(), 10s);
  EXPECT_EQ(direct.data("/ensemble"), "before");
}

TEST(ZooKeeperHarness, ProxyCutsAfterTheReplyToACreate) {
  ZooKeeperServer server;
  TcpProxy proxy(server.port());
  ZooKeeperClient direct(server.connect_string(), 10s);
  ZooKeeperClient through(proxy.address(), 3s);
  EXPECT_EQ(proxy.connections(), 1);
  direct.create("/cut");

  proxy.cut_after_create_reply("/cut/", 1);
  try {
    through.create("/cut/n-", "", ZOO_EPHEMERAL | ZOO_SEQUENCE);
    ADD_FAILURE() << "the create's reply got through";
  } catch (const ZooKeeperError& e) {
    EXPECT_EQ(e.code(), ZCONNECTIONLOSS) << e.what();
  }
  EXPECT_EQ(proxy.create_cuts(), 1);
  // The node exists: the server did create it, only the reply was lost.
  EXPECT_EQ(direct.children("/cut"), std::vector<std::string>{"n-0000000000"});
  // The client reconnects through the proxy within its session and works again.
  EXPECT_TRUE(eventually([&] {
    try {
      return through.children("/cut").size() == 1;
    } catch (const ZooKeeperError&) {
      return false;
    }
  }));

  // A cut of every connection, and a freeze.
  proxy.cut_all();
  EXPECT_TRUE(eventually([&] {
    try {
      return through.stat("/cut").has_value();
    } catch (const ZooKeeperError&) {
      return false;
    }
  }));
  proxy.freeze();
  EXPECT_THROW(through.create("/cut/frozen"), ZooKeeperError);
  proxy.thaw();
  EXPECT_TRUE(eventually([&] {
    try {
      through.create("/cut/thawed");
      return true;
    } catch (const ZooKeeperError&) {
      return false;
    }
  }));
  EXPECT_TRUE(direct.stat("/cut/thawed").has_value());
}

}  // namespace
}  // namespace distlock::testing
