// SPDX-License-Identifier: Apache-2.0
// The etcd backend's watch stream (backends/etcd/deletion_watcher.h) against a private etcd
// behind a TcpProxy: a write the stream cannot make (the member stopped reading, so its
// flow-control window stays shut) holds up neither the waiters' waits and withdrawals nor the
// reading of the stream.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <vector>

#include "backends/etcd/deletion_watcher.h"
#include "backends/etcd/rpc_client.h"
#include "backends/etcd/settings.h"
#include "etcd_server.h"
#include "integration_helpers.h"
#include "tcp_proxy.h"
#include "util/steady_clock.h"
#include "util/url.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;
using detail::SteadyClock;
using detail::etcd::DeletionWatcher;
using detail::etcd::RpcClient;
using detail::etcd::WatchTarget;

// More watches than a stream's initial flow-control window (64 KiB) holds requests for.
constexpr int kWatchesPastTheWindow = 4000;

TEST(EtcdWatchStream, AWriteTheMemberDoesNotReadHoldsUpNoWaiter) {
  std::unique_ptr<EtcdServer> server;
  try {
    server = std::make_unique<EtcdServer>();
  } catch (const std::exception& e) {
    FAIL() << "cannot start etcd: " << e.what();
  }
  TcpProxy proxy(server->port());
  Options options;
  options.command_timeout = 2s;
  const auto settings =
      detail::etcd::etcd_settings(detail::parse_url("etcd://" + proxy.address()), options);
  RpcClient rpc(settings);
  rpc.check_reachable();
  DeletionWatcher watcher(rpc);
  const std::string key = unique_name("watched");
  const auto first = watcher.watch(WatchTarget{key, {}}, 1);

  proxy.freeze();
  // Each watch asks the stream for one more: past the window, the stream's writes wait for a
  // member that reads nothing.
  auto asking = std::async(std::launch::async, [&] {
    std::vector<std::unique_ptr<DeletionWatcher::Ticket>> tickets;
    for (int i = 0; i < kWatchesPastTheWindow; ++i)
      tickets.push_back(watcher.watch(WatchTarget{key + "/" + std::to_string(i), {}}, 1));
    return tickets.size();
  });
  // A waiter's wait ends by its deadline, and a waiter gives its watch up, whatever the stream's
  // writes are waiting for.
  auto waiting = std::async(std::launch::async, [&] {
    for (int i = 0; i < 50; ++i) {
      const auto ticket = watcher.watch(WatchTarget{key + "/late" + std::to_string(i), {}}, 1);
      EXPECT_FALSE(ticket->wait(SteadyClock::now() + 10ms));
    }
    return first->wait(SteadyClock::now() + 10ms);
  });
  ASSERT_EQ(waiting.wait_for(20s), std::future_status::ready)
      << "a wait was held up by the stream's writes";
  EXPECT_FALSE(waiting.get()) << "nothing deleted the key";
  ASSERT_EQ(asking.wait_for(20s), std::future_status::ready)
      << "watching does not return while the member reads nothing";
  EXPECT_EQ(asking.get(), static_cast<std::size_t>(kWatchesPastTheWindow));

  // Once the member reads again, every watch is made: a deletion wakes its waiter.
  proxy.thaw();
  server->etcdctl({"put", key, "v"});
  server->etcdctl({"del", key});
  EXPECT_TRUE(first->wait(SteadyClock::now() + 20s)) << "the deletion did not wake the waiter";
}

}  // namespace
}  // namespace distlock::testing
