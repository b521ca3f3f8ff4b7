// SPDX-License-Identifier: Apache-2.0
#include "servers.h"

#include <signal.h>
#include <unistd.h>

#include <stdexcept>
#include <vector>

#if DISTLOCK_CHECKER_ETCD
#include "etcd_server.h"
#endif
#if DISTLOCK_CHECKER_POSTGRESQL
#include "postgres_server.h"
#endif
#include "redis_cluster.h"
#include "redis_sentinel_group.h"
#include "redis_server.h"
#include "subprocess.h"
#include "tls_files.h"
#include "zookeeper_server.h"

namespace distlock::reliability {
namespace {

using testing::Subprocess;

std::string not_supported(const std::string& backend, const std::string& what) {
  return "the " + backend + " service cannot " + what;
}

class MemoryService final : public LockService {
 public:
  std::string backend() const override { return "memory"; }
  std::string url() const override { return "memory://checker-" + std::to_string(::getpid()); }
  bool in_process() const override { return true; }
};

// redis-server without persistence, as the RedisServer of test/support starts it, but
// restartable on the same port (a restart must reach the clients at the address they
// know).
class RedisService final : public LockService {
 public:
  explicit RedisService(std::filesystem::path directory) : directory_(std::move(directory)) {
    program_ = testing::redis_server_program();
    if (program_.empty())
      throw std::runtime_error(
          "redis-server not found (PATH, /usr/local/bin, /usr/bin, /usr/sbin or "
          "$DISTLOCK_REDIS_SERVER); Debian: apt-get install redis-server");
    std::filesystem::create_directories(directory_);
    std::string last_output;
    for (int attempt = 0; attempt < 8; ++attempt) {
      port_ = testing::free_loopback_port();
      if (launch(last_output)) return;
      // Taken meanwhile by someone else: another port.
    }
    throw std::runtime_error("redis-server did not start: " + last_output);
  }

  std::string backend() const override { return "redis"; }
  std::string url() const override { return "redis://127.0.0.1:" + std::to_string(port_); }
  std::string url_through(const std::vector<std::uint16_t>& proxy_ports) const override {
    return "redis://127.0.0.1:" + std::to_string(proxy_ports.at(0));
  }
  std::vector<std::uint16_t> ports() const override { return {port_}; }

  Restart restart() override {
    Restart restart;
    restart.stopped_at = mono_ns();
    process_->kill(SIGKILL);
    process_->wait(std::chrono::seconds(30));
    process_.reset();
    std::string output;
    if (!launch(output))
      throw std::runtime_error("redis-server did not come back on port " + std::to_string(port_) +
                               ": " + output);
    restart.serving_at = mono_ns();
    return restart;
  }

 private:
  // Starts redis-server on port_; false (with its output) when it did not come up.
  bool launch(std::string& output) {
    Subprocess::Options options;
    options.merge_stderr = true;
    auto process = std::make_unique<Subprocess>(
        program_,
        std::vector<std::string>{"--port", std::to_string(port_), "--bind", "127.0.0.1", "--save",
                                 "", "--appendonly", "no", "--dir", directory_.string(),
                                 "--daemonize", "no"},
        options);
    output.clear();
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    for (;;) {
      const auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
      if (left.count() <= 0) {
        output += " (not ready within 20 s)";
        return false;
      }
      std::optional<std::string> line;
      try {
        line = process->read_line(left);
      } catch (const std::exception& e) {
        output += e.what();
        return false;
      }
      if (!line) return false;  // exited: the output says why
      output += *line + "\n";
      if (line->find("Ready to accept connections") != std::string::npos) break;
    }
    process->discard_output();
    process_ = std::move(process);
    return true;
  }

  std::filesystem::path directory_;
  std::filesystem::path program_;
  std::uint16_t port_ = 0;
  std::unique_ptr<Subprocess> process_;
};

// A redis-server that speaks TLS only, with the test CA's certificates (tls_files.h); the
// workers verify it by that CA. Not restartable: its faults are a worker's.
class TlsRedisService final : public LockService {
 public:
  TlsRedisService() : server_({}, testing::ServerTls::of_test_ca()) {}

  std::string backend() const override { return "rediss"; }
  std::string url() const override { return url_through(ports()); }
  std::string url_through(const std::vector<std::uint16_t>& proxy_ports) const override {
    return "rediss://127.0.0.1:" + std::to_string(proxy_ports.at(0)) +
           "?cacert=" + testing::tls_files().ca.string();
  }
  std::vector<std::uint16_t> ports() const override { return {server_.port()}; }

 private:
  testing::RedisServer server_;
};

testing::ZooKeeperConfig zookeeper_config() {
  testing::ZooKeeperConfig config;
  // Sessions down to 1 s, expired on 250 ms ticks.
  config.tick = Millis(250);
  config.min_session_timeout = Millis(1000);
  config.max_session_timeout = Millis(60000);
  return config;
}

std::string zookeeper_query(Millis session_timeout) {
  return "?session_timeout=" + std::to_string(session_timeout.count()) + "ms";
}

class ZooKeeperService final : public LockService {
 public:
  explicit ZooKeeperService(Millis session_timeout)
      : session_timeout_(session_timeout), server_(zookeeper_config()) {}

  std::string backend() const override { return "zookeeper"; }
  std::string url() const override { return server_.url() + zookeeper_query(session_timeout_); }
  std::string url_through(const std::vector<std::uint16_t>& proxy_ports) const override {
    return "zookeeper://127.0.0.1:" + std::to_string(proxy_ports.at(0)) +
           zookeeper_query(session_timeout_);
  }
  std::vector<std::uint16_t> ports() const override { return {server_.port()}; }
  Millis expiry_bound(Millis ttl) const override {
    return std::max(ttl, session_timeout_) + 2 * zookeeper_config().tick;
  }

  Restart restart() override {
    Restart restart;
    restart.stopped_at = mono_ns();
    server_.kill(SIGKILL);
    server_.start();
    restart.serving_at = mono_ns();
    return restart;
  }

 private:
  Millis session_timeout_;
  testing::ZooKeeperServer server_;
};

class ZooKeeperEnsembleService final : public LockService {
 public:
  explicit ZooKeeperEnsembleService(Millis session_timeout)
      : session_timeout_(session_timeout), ensemble_(zookeeper_config()) {}

  std::string backend() const override { return "zookeeper-ensemble"; }
  std::string url() const override { return ensemble_.url() + zookeeper_query(session_timeout_); }
  Millis expiry_bound(Millis ttl) const override {
    return std::max(ttl, session_timeout_) + 2 * zookeeper_config().tick;
  }

  LeaderKill kill_leader() override {
    LeaderKill kill;
    kill.index = ensemble_.leader();
    kill.killed_at = mono_ns();
    ensemble_.kill(kill.index);
    killed_.push_back(kill.index);
    return kill;
  }

  void restore() override {
    for (const int index : killed_) ensemble_.restart(index);
    killed_.clear();
    ensemble_.await_quorum();
  }

 private:
  Millis session_timeout_;
  testing::ZooKeeperEnsemble ensemble_;
  std::vector<int> killed_;
};

// A master with two replicas behind three sentinels. As redis-sentinel the workers ask for
// min_replicas=1: a grant counts only once a replica has it, so it survives the master's
// death. As redis-sentinel-async they do not (min_replicas=0): a grant the promoted replica
// never saw can be given again, and the run shows it.
class RedisSentinelService final : public LockService {
 public:
  explicit RedisSentinelService(unsigned min_replicas) : min_replicas_(min_replicas) {}

  std::string backend() const override {
    return min_replicas_ > 0 ? "redis-sentinel" : "redis-sentinel-async";
  }
  std::string url() const override {
    return group_.url() + "?min_replicas=" + std::to_string(min_replicas_);
  }

  // The master is the leader here; the kill returns once a replica is promoted.
  LeaderKill kill_leader() override {
    LeaderKill kill;
    kill.index = 0;
    kill.killed_at = mono_ns();
    group_.kill_master_and_wait_for_failover(std::chrono::seconds(60));
    return kill;
  }

 private:
  unsigned min_replicas_;
  testing::SentinelGroup group_;
};

// Three independent masters for Redlock. Its "leader" is the first master: killing it
// leaves a majority.
class RedisRedlockService final : public LockService {
 public:
  RedisRedlockService() {
    for (int i = 0; i < 3; ++i) {
      masters_.push_back(std::make_unique<testing::RedisServer>());
      ports_.push_back(masters_.back()->port());
    }
  }

  std::string backend() const override { return "redis-redlock"; }
  std::string url() const override { return url_through(ports()); }
  std::string url_through(const std::vector<std::uint16_t>& proxy_ports) const override {
    std::string url = "redis+redlock://";
    for (std::size_t i = 0; i < proxy_ports.size(); ++i)
      url += (i == 0 ? "127.0.0.1:" : ",127.0.0.1:") + std::to_string(proxy_ports[i]);
    return url;
  }
  std::vector<std::uint16_t> ports() const override { return ports_; }

  LeaderKill kill_leader() override {
    LeaderKill kill;
    kill.index = 0;
    kill.killed_at = mono_ns();
    masters_.front().reset();
    return kill;
  }

 private:
  std::vector<std::unique_ptr<testing::RedisServer>> masters_;
  std::vector<std::uint16_t> ports_;
};

// A Redis Cluster of three masters with a replica each. Its leader is the master of the
// checker's lock: killing it hands the slot to its replica (cluster node timeout 2 s).
class RedisClusterService final : public LockService {
 public:
  std::string backend() const override { return "redis-cluster"; }
  std::string url() const override { return cluster_.url(); }

  LeaderKill kill_leader() override {
    LeaderKill kill;
    kill.index = 0;
    kill.killed_at = mono_ns();
    cluster_.kill_master_of(cluster_.key_slot("distlock:{checker:shared}"),
                            std::chrono::seconds(60));
    return kill;
  }

 private:
  testing::RedisCluster cluster_;
};

}  // namespace

std::string LockService::url_through(const std::vector<std::uint16_t>&) const {
  throw std::runtime_error(not_supported(backend(), "be reached through a proxy"));
}
std::vector<std::uint16_t> LockService::ports() const { return {}; }
LockService::Restart LockService::restart() {
  throw std::runtime_error(not_supported(backend(), "restart its server"));
}
#if DISTLOCK_CHECKER_POSTGRESQL
// A PostgreSQL server (test/support/postgres_server.h); its crash is an immediate shutdown,
// after which the server replays its log: the lock rows stay.
class PostgresService final : public LockService {
 public:
  std::string backend() const override { return "postgresql"; }
  std::string url() const override { return server_.url(); }
  std::string url_through(const std::vector<std::uint16_t>& proxy_ports) const override {
    return "postgresql://distlock@127.0.0.1:" + std::to_string(proxy_ports.at(0)) + "/postgres";
  }
  std::vector<std::uint16_t> ports() const override { return {server_.port()}; }

  Restart restart() override {
    Restart restart;
    restart.stopped_at = mono_ns();
    server_.restart_after_crash();
    restart.serving_at = mono_ns();
    return restart;
  }

 private:
  testing::PostgresServer server_;
};
#endif

#if DISTLOCK_CHECKER_ETCD
// How long etcd may keep a dead client's lock: its lease, the ttl rounded up to whole seconds,
// and the half second between the leader's looks for expired leases.
Millis etcd_expiry_bound(Millis ttl) {
  const auto seconds = std::chrono::ceil<std::chrono::seconds>(ttl);
  return std::chrono::duration_cast<Millis>(std::max(seconds, std::chrono::seconds(1))) +
         Millis(500);
}

// One etcd member (test/support/etcd_server.h); its crash is a SIGKILL, after which it
// replays its log: the keys and leases stay, and the leases' time starts again.
class EtcdService final : public LockService {
 public:
  std::string backend() const override { return "etcd"; }
  std::string url() const override { return server_.url(); }
  std::string url_through(const std::vector<std::uint16_t>& proxy_ports) const override {
    return "etcd://127.0.0.1:" + std::to_string(proxy_ports.at(0));
  }
  std::vector<std::uint16_t> ports() const override { return {server_.port()}; }
  Millis expiry_bound(Millis ttl) const override { return etcd_expiry_bound(ttl); }

  Restart restart() override {
    Restart restart;
    restart.stopped_at = mono_ns();
    server_.kill();
    server_.restart();
    restart.serving_at = mono_ns();
    return restart;
  }

 private:
  testing::EtcdServer server_;
};

// Three etcd members; their leader is raft's.
class EtcdClusterService final : public LockService {
 public:
  std::string backend() const override { return "etcd-cluster"; }
  std::string url() const override { return cluster_.url(); }
  Millis expiry_bound(Millis ttl) const override { return etcd_expiry_bound(ttl); }

  LeaderKill kill_leader() override {
    LeaderKill kill;
    kill.index = cluster_.leader_index();
    kill.killed_at = mono_ns();
    cluster_.member(kill.index).kill();
    killed_.push_back(kill.index);
    return kill;
  }

  void restore() override {
    for (const int index : killed_) cluster_.member(index).restart();
    killed_.clear();
    (void)cluster_.leader_index();
  }

 private:
  testing::EtcdCluster cluster_;
  std::vector<int> killed_;
};
#endif

LockService::LeaderKill LockService::kill_leader() {
  throw std::runtime_error(not_supported(backend(), "lose a leader"));
}
void LockService::restore() {}

std::unique_ptr<LockService> make_service(const ServiceSettings& settings) {
  if (settings.backend == "memory") return std::make_unique<MemoryService>();
  if (settings.backend == "redis")
    return std::make_unique<RedisService>(settings.directory / "redis");
  if (settings.backend == "rediss") return std::make_unique<TlsRedisService>();
  if (settings.backend == "redis-sentinel") return std::make_unique<RedisSentinelService>(1);
  if (settings.backend == "redis-sentinel-async") return std::make_unique<RedisSentinelService>(0);
  if (settings.backend == "redis-redlock") return std::make_unique<RedisRedlockService>();
  if (settings.backend == "redis-cluster") return std::make_unique<RedisClusterService>();
  if (settings.backend == "zookeeper")
    return std::make_unique<ZooKeeperService>(settings.session_timeout);
  if (settings.backend == "zookeeper-ensemble")
    return std::make_unique<ZooKeeperEnsembleService>(settings.session_timeout);
#if DISTLOCK_CHECKER_ETCD
  if (settings.backend == "etcd") return std::make_unique<EtcdService>();
  if (settings.backend == "etcd-cluster") return std::make_unique<EtcdClusterService>();
#endif
#if DISTLOCK_CHECKER_POSTGRESQL
  if (settings.backend == "postgresql") return std::make_unique<PostgresService>();
#endif
  throw std::invalid_argument("unknown backend '" + settings.backend +
                              "' (memory, redis, rediss, redis-sentinel, redis-sentinel-async, "
                              "redis-redlock, redis-cluster, zookeeper, zookeeper-ensemble, "
                              "etcd, etcd-cluster, postgresql)");
}

}  // namespace distlock::reliability
