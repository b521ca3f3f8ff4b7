// SPDX-License-Identifier: Apache-2.0
// An acquisition whose exchange with the server is cut mid-way, through the test proxy, on the
// shared connection and on pooled ones: after a cut between the script's run and its reply,
// and after a partition that swallowed requests, the lock state is settled. The acquisition is
// retried by its id, so the server keeps one hold for it, under the one fence it was granted,
// whatever copies of the request reached it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <distlock/distlock.h>

#include "captured_log.h"
#include "integration_helpers.h"
#include "lock_connection_kinds.h"
#include "redis_script_text.h"
#include "redis_suite.h"
#include "tcp_proxy.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// GetParam(): the connections the lock commands take (lock_connection_kinds.h).
class RedisCutExchange : public RedisSuiteTest,
                         public ::testing::WithParamInterface<std::string_view> {
 protected:
  std::shared_ptr<Client> connect_through(const TcpProxy& proxy, std::string_view more = "") {
    return Client::connect("redis://" + proxy.address() + "?" + std::string(GetParam()) +
                           std::string(more));
  }
  std::string key_for(std::string_view name) const {
    return for_lock_connection_kind(name, GetParam());
  }
  // The lock hash holds `lease` alone, once, under its fence, and no later fence was handed out.
  void expect_settled(const std::string& key, const Lease& lease) {
    const std::string hash = "distlock:{order:" + key + "}";
    EXPECT_EQ(redis().cli({"HGET", hash, "count"}), "1");
    EXPECT_EQ(redis().cli({"HGET", hash, "fence"}), std::to_string(lease.fence()));
    EXPECT_EQ(redis().cli({"GET", hash + ":fence"}), std::to_string(lease.fence()));
    const auto fields = lines_of(redis().cli({"HKEYS", hash}));
    EXPECT_EQ(std::count_if(fields.begin(), fields.end(),
                            [](const std::string& field) { return field.rfind("h:", 0) == 0; }),
              1);
    EXPECT_EQ(redis().cli({"HEXISTS", hash, "h:" + lease.id()}), "1");
  }
};

INSTANTIATE_TEST_SUITE_P(Connections, RedisCutExchange, lock_connection_kinds(),
                         lock_connection_kind_name);

TEST_P(RedisCutExchange, AnAcquisitionWhoseRepliesAreLostIsGrantedOnceByItsId) {
  TcpProxy proxy(redis().port());
  auto client = connect_through(proxy);
  // The first try and the retry on a new connection both run, and neither hears back.
  proxy.cut_after_reply_to(
      redis().cli(
          {"SCRIPT", "LOAD", redis_script_text({"lib/fence", "lib/exclusive_hold", "acquire"})}),
      2);
  const std::string key = key_for("lost-reply");
  std::optional<Lease> lease = client->acquire(spec("order", 60s, wait(30s)), key);
  EXPECT_EQ(proxy.reply_cuts(), 2) << "the acquisition's replies were not cut";
  expect_settled(key, *lease);

  lease->release();
  EXPECT_EQ(redis().cli({"EXISTS", "distlock:{order:" + key + "}"}), "0");
}

// The release ran, and its connection was cut before the reply came back: sent again, it finds
// the hold gone by its own doing, which is no loss (the master killed between a release and
// its reply, with a replica promoted that had it, looks the same).
TEST_P(RedisCutExchange, AReleaseWhoseReplyIsLostIsReleasedNotLost) {
  TcpProxy proxy(redis().port());
  auto client = connect_through(proxy);
  const std::string key = key_for("lost-release-reply");
  Lease lease = client->acquire(spec("order", 60s), key);
  proxy.cut_after_reply_to(
      redis().cli({"SCRIPT", "LOAD", redis_script_text({"lib/release_hold", "release"})}));
  EXPECT_NO_THROW(lease.release());
  EXPECT_EQ(proxy.reply_cuts(), 1) << "the release's reply was not cut";
  EXPECT_EQ(redis().cli({"EXISTS", "distlock:{order:" + key + "}"}), "0");
  EXPECT_EQ(client->stats().lost, 0u);
}

TEST_P(RedisCutExchange, AnAcquisitionThroughAPartitionIsSettledWhenItEnds) {
  TcpProxy proxy(redis().port());
  auto client = connect_through(proxy, "&command_timeout=300ms&outage_limit=60s");
  const std::string key = key_for("partition");
  const CapturedLog log;
  proxy.freeze();
  auto acquired = std::async(std::launch::async,
                             [&] { return client->acquire(spec("order", 60s, wait(60s)), key); });
  ASSERT_TRUE(eventually([&] { return log.told_of_riding(); }, 30s))
      << "the acquisition never met the partition";
  proxy.thaw();
  ASSERT_EQ(acquired.wait_for(60s), std::future_status::ready);
  const Lease lease = acquired.get();
  // A request the partition held back that reaches the server later carries the same id, as
  // a retry after a lost reply does (the tests above).
  expect_settled(key, lease);
}

// A wait on a server that stops answering ends by its deadline on either kind of connection:
// a pooled one's command is not awaited to its command_timeout either.
TEST_P(RedisCutExchange, AWaitOnAFrozenServerEndsByItsDeadline) {
  TcpProxy proxy(redis().port());
  auto client = connect_through(proxy, "&command_timeout=60s");
  const std::string key = key_for("frozen-wait");
  // Connected and answered first, so that the freeze meets an open connection.
  (void)client->acquire(spec("order", 30s), key + "-before");
  proxy.freeze();
  struct Thaw {
    TcpProxy& proxy;
    ~Thaw() { proxy.thaw(); }
  } thaw{proxy};
  const auto started = std::chrono::steady_clock::now();
  try {
    (void)client->acquire(spec("order", 30s, wait(2s)), key);
    ADD_FAILURE() << "acquired from a frozen server";
  } catch (const BackendUnavailable& error) {
    EXPECT_NE(std::string(error.what()).find("the caller's deadline"), std::string::npos)
        << error.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
}

}  // namespace
}  // namespace distlock::testing
