// SPDX-License-Identifier: Apache-2.0
// A replicated Redis watched by Sentinel, for tests and benchmarks: one master, its
// replicas and three sentinels (quorum 2), each a private process on a free loopback port,
// all stopped when the group goes away. Failover is quick: a master is down after 1 s
// without replies, unless the test says otherwise (judge_master_down_after).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "redis_server.h"
#include "tcp_proxy.h"

namespace distlock::testing {

class SentinelGroup {
 public:
  static constexpr const char* kMasterName = "distlock-master";

  // Starts the master, `replicas` replicas (in sync before this returns) and three
  // sentinels that know of each other and of every replica. Throws std::runtime_error
  // with what did not come up. With `tls`, every server and sentinel speaks TLS only, to its
  // clients and to each other. Through proxies, each server announces its proxy's address, and
  // the sentinels watch the master and its replicas through them too (a fault on the proxies is
  // a partition of the servers from everyone).
  explicit SentinelGroup(int replicas = 2, std::vector<std::string> server_args = {},
                         std::optional<ServerTls> tls = std::nullopt,
                         ServerReach reach = ServerReach::direct);
  ~SentinelGroup();
  SentinelGroup(const SentinelGroup&) = delete;
  SentinelGroup& operator=(const SentinelGroup&) = delete;

  // "redis+sentinel://127.0.0.1:<s1>,127.0.0.1:<s2>,127.0.0.1:<s3>/distlock-master";
  // "rediss+sentinel://..." with TLS, whose client adds ?cacert=... to it.
  std::string url() const;
  std::vector<std::uint16_t> sentinel_ports() const;
  // The sentinels' processes (to freeze one), in the URL's order.
  std::vector<const RedisServer*> sentinels() const;

  // How long the sentinels wait for a silent master before they fail it over (SENTINEL SET
  // down-after-milliseconds): Redis ships 30 s.
  void judge_master_down_after(std::chrono::milliseconds silence);

  // The proxies in front of the master and the replicas (none when reached directly).
  std::vector<TcpProxy*> server_proxies() const;

  // The server the sentinels name as master now, and the others.
  RedisServer& master();
  std::vector<RedisServer*> replicas();

  // SIGKILLs the master and waits until the sentinels have promoted a replica and it
  // answers ROLE as master; returns it. The killed server stays dead.
  RedisServer& kill_master_and_wait_for_failover(std::chrono::seconds limit);
  // SENTINEL FAILOVER (the old master stays up and becomes a replica); waits as above.
  RedisServer& fail_over_and_wait(std::chrono::seconds limit);

  // Starts one more replica of the current master and waits until it is in sync (the
  // sentinels learn of it within their 10 s INFO period; clients' WAIT counts it at once).
  RedisServer& add_replica();

  // The master's port as the first answering sentinel says (its proxy's, through proxies).
  std::uint16_t master_port_by_sentinels() const;

 private:
  RedisServer& wait_for_new_master(std::uint16_t old_port, std::chrono::seconds limit);
  // Starts a server of the group (behind its proxy, through proxies).
  RedisServer& start_server(std::vector<std::string> args);
  // Starts a replica of the current master.
  RedisServer& start_replica();
  RedisServer* server_on(std::uint16_t announced);
  void wait_until_ready(std::chrono::seconds limit) const;

  std::vector<std::unique_ptr<RedisServer>> servers_;  // master first at the start
  ServerProxies proxies_;
  std::vector<std::unique_ptr<RedisServer>> sentinels_;
  std::uint16_t master_port_ = 0;  // announced
  std::vector<std::string> server_args_;
  std::optional<ServerTls> tls_;
  ServerReach reach_;
};

}  // namespace distlock::testing
