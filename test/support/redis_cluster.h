// SPDX-License-Identifier: Apache-2.0
// A private Redis Cluster for tests and benchmarks: three masters and one replica each, every
// server a private process on a free loopback port, made a cluster with
// `redis-cli --cluster create`, all stopped when the object goes away.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redis_server.h"
#include "tcp_proxy.h"

namespace distlock::testing {

class RedisCluster {
 public:
  // Returns once every node reports cluster_state:ok and all slots are served. Throws
  // std::runtime_error with what did not come up. With `tls`, every node speaks TLS only, to
  // its clients and on the cluster bus. Through proxies, each node announces its proxy's address
  // to clients and to its replicas (the cluster bus stays direct: a fault on the proxies cuts
  // the clients off, it does not fail a master over).
  explicit RedisCluster(int masters = 3, int replicas_per_master = 1,
                        const std::optional<ServerTls>& tls = std::nullopt,
                        ServerReach reach = ServerReach::direct);
  // What a test that cannot start it says it could not start.
  static constexpr std::string_view kName = "Redis Cluster";
  ~RedisCluster();
  RedisCluster(const RedisCluster&) = delete;
  RedisCluster& operator=(const RedisCluster&) = delete;

  // "redis+cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,..." naming every master;
  // "rediss+cluster://..." with TLS, whose client adds ?cacert=... to it. Through proxies, the
  // masters' proxies.
  std::string url() const;
  // The proxies in front of the nodes (none when reached directly).
  std::vector<TcpProxy*> server_proxies() const;
  // The master that serves `slot` now (CLUSTER SLOTS).
  RedisServer& master_of(int slot) const;
  // The same, as the first surviving node sees it; nullptr when none does yet.
  RedisServer* master_seen_for(int slot) const;
  // CLUSTER KEYSLOT, asked of the cluster.
  int key_slot(const std::string& key) const;
  // Moves `slot` to master `to` as redis-cli --cluster reshard does: IMPORTING on `to`,
  // MIGRATING on its master, MIGRATE of every key in it, then SETSLOT NODE on every master.
  // `between` runs after the first keys moved and before the slot is handed over (while
  // the old master answers ASK for them).
  void move_slot(int slot, RedisServer& to, const std::function<void()>& between = {});
  // SIGKILLs the master of `slot` and waits until its replica serves the slot as master and
  // the surviving nodes report cluster_state:ok; returns the new master.
  RedisServer& kill_master_of(int slot, std::chrono::seconds limit);

 private:
  std::vector<std::unique_ptr<RedisServer>> servers_;  // a killed one is null
  ServerProxies proxies_;
  std::string url_;
};

}  // namespace distlock::testing
