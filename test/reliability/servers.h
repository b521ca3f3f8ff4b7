// SPDX-License-Identifier: Apache-2.0
// The lock services the checker runs against, each started by the checker itself on free
// loopback ports inside its temporary directory and stopped with the object:
//   memory               memory://<name>: the workers are threads of one process
//   redis                a redis-server without persistence, restartable on the same port
//   rediss               a redis-server that speaks TLS only (rediss://)
//   redis-sentinel       a master, two replicas and three sentinels; workers use
//                        min_replicas=1; its leader is the master
//   redis-sentinel-async the same with min_replicas=0: a failover may grant twice
//   redis-redlock        three independent masters (redis+redlock://); its leader is the
//                        first
//   redis-cluster        three masters with a replica each (redis+cluster://); its leader is
//                        the master of the checker's lock
//   zookeeper            a standalone ZooKeeper (test/support/zookeeper_server.h)
//   zookeeper-ensemble   three ZooKeeper servers with one leader
//   etcd                 one etcd member (test/support/etcd_server.h), in a build with the
//                        etcd:// backend
//   etcd-cluster         three etcd members; its leader is raft's
//   postgresql           a PostgreSQL server (test/support/postgres_server.h), in a build with
//                        the postgresql:// backend
// A missing redis-server, java, ZooKeeper jar, etcd or PostgreSQL server is an error, never a
// skip.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "events.h"

namespace distlock::reliability {

class LockService {
 public:
  virtual ~LockService() = default;

  virtual std::string backend() const = 0;
  // The URL the workers use.
  virtual std::string url() const = 0;
  // The URL of a worker that reaches the servers through proxies, one per port of ports(),
  // in that order.
  virtual std::string url_through(const std::vector<std::uint16_t>& proxy_ports) const;
  // The servers' ports, for proxies in front of them. Services whose clients learn
  // addresses from the servers (Sentinel, Cluster) have none.
  virtual std::vector<std::uint16_t> ports() const;
  // Memory: the workers must be threads of one process.
  virtual bool in_process() const { return false; }
  // How long the service may take to notice a dead client and free its lock: the lease ttl
  // for Redis and memory, the session timeout (plus a tick of expiry granularity) for
  // ZooKeeper.
  virtual Millis expiry_bound(Millis ttl) const { return ttl; }

  // Stops the server at once (SIGKILL: a crash) and starts it again on the same port; returns
  // when it serves again. The stop time and the time it served again, in mono_ns().
  struct Restart {
    std::int64_t stopped_at = 0;
    std::int64_t serving_at = 0;
  };
  virtual Restart restart();
  // Ensembles: SIGKILLs the leader; returns its index and the time of the kill.
  struct LeaderKill {
    int index = -1;
    std::int64_t killed_at = 0;
  };
  virtual LeaderKill kill_leader();
  // Ensembles: starts the servers killed before again and waits for a quorum with a leader.
  virtual void restore();
};

struct ServiceSettings {
  std::string backend;
  std::filesystem::path directory;  // a fresh directory for the servers' files
  Millis session_timeout{2000};     // ZooKeeper
};

std::unique_ptr<LockService> make_service(const ServiceSettings& settings);

}  // namespace distlock::reliability
