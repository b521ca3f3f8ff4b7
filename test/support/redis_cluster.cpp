// SPDX-License-Identifier: Apache-2.0
#include "redis_cluster.h"

#include <signal.h>

#include <sstream>
#include <stdexcept>
#include <thread>

namespace distlock::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kReadyLimit = std::chrono::seconds(30);
// The cluster's state is polled: nodes tell a client of changes only through their logs.
constexpr auto kPollInterval = std::chrono::milliseconds(50);

}  // namespace

RedisCluster::RedisCluster(int masters, int replicas_per_master,
                           const std::optional<ServerTls>& tls, ServerReach reach) {
  const int count = masters * (1 + replicas_per_master);
  for (int i = 0; i < count; ++i) {
    std::vector<std::string> args = {
        "--cluster-enabled", "yes", "--cluster-node-timeout", "2000",
        // The bus port would be the port + 10000, beyond 65535 for many free ports.
        "--cluster-port", std::to_string(free_loopback_port()),
        // A replica syncs at once, not after the default 5 s.
        "--repl-diskless-sync-delay", "0"};
    if (tls) args.insert(args.end(), {"--tls-cluster", "yes", "--tls-replication", "yes"});
    const RedisServer& server = *servers_.emplace_back(std::make_unique<RedisServer>(args, tls));
    if (reach == ServerReach::through_proxies) {
      const TcpProxy& proxy = proxies_.put_before(server.port());
      // The bus port announced stays the node's own (--cluster-port).
      server.cli({"CONFIG", "SET", "cluster-announce-ip", "127.0.0.1",
                  tls ? "cluster-announce-tls-port" : "cluster-announce-port",
                  std::to_string(proxy.port())});
    }
  }
  std::vector<std::string> create = {"--cluster", "create"};
  for (const auto& server : servers_)
    create.push_back("127.0.0.1:" + std::to_string(server->port()));
  create.insert(create.end(),
                {"--cluster-replicas", std::to_string(replicas_per_master), "--cluster-yes"});
  servers_.front()->cli(create);

  url_ = tls ? "rediss+cluster://" : "redis+cluster://";
  for (int i = 0; i < masters; ++i)
    url_ += (i == 0 ? "127.0.0.1:" : ",127.0.0.1:") +
            std::to_string(proxies_.announced_port(servers_[i]->port()));

  const auto deadline = Clock::now() + kReadyLimit;
  for (const auto& server : servers_) {
    while (server->cli({"CLUSTER", "INFO"}).find("cluster_state:ok") == std::string::npos) {
      if (Clock::now() >= deadline)
        throw std::runtime_error("redis cluster: node " + std::to_string(server->port()) +
                                 " did not reach cluster_state:ok");
      std::this_thread::sleep_for(kPollInterval);
    }
  }
}

RedisCluster::~RedisCluster() = default;

std::string RedisCluster::url() const { return url_; }

std::vector<TcpProxy*> RedisCluster::server_proxies() const { return proxies_.all(); }

RedisServer* RedisCluster::master_seen_for(int slot) const {
  const RedisServer* asked = nullptr;
  for (const auto& server : servers_)
    if (server) {
      asked = server.get();
      break;
    }
  if (asked == nullptr) return nullptr;
  // CLUSTER NODES: "<id> <ip:port@bus-port> <flags> <master> <ping> <pong> <epoch> <link>
  // <slot ranges...>", one line per node; a range is "a-b" or "a" ("[...]" while migrating).
  for (const auto& line : lines_of(asked->cli({"CLUSTER", "NODES"}))) {
    std::istringstream fields(line);
    std::string id, address, flags, master, ping, pong, epoch, link;
    fields >> id >> address >> flags >> master >> ping >> pong >> epoch >> link;
    if (flags.find("master") == std::string::npos || flags.find("fail") != std::string::npos)
      continue;
    for (std::string range; fields >> range;) {
      if (range.front() == '[') continue;
      const auto dash = range.find('-');
      const int first = std::stoi(range.substr(0, dash));
      const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
      if (slot < first || slot > last) continue;
      const std::string port =
          address.substr(address.find(':') + 1, address.find('@') - address.find(':') - 1);
      for (const auto& server : servers_)
        if (server && std::to_string(proxies_.announced_port(server->port())) == port)
          return server.get();
    }
  }
  return nullptr;
}

RedisServer& RedisCluster::master_of(int slot) const {
  RedisServer* master = master_seen_for(slot);
  if (master == nullptr)
    throw std::runtime_error("redis cluster: no master found for slot " + std::to_string(slot));
  return *master;
}

RedisServer& RedisCluster::kill_master_of(int slot, std::chrono::seconds limit) {
  RedisServer* old = &master_of(slot);
  ::kill(old->pid(), SIGKILL);
  proxies_.remove(old->port());
  for (auto& server : servers_)
    if (server.get() == old) server.reset();
  const auto deadline = Clock::now() + limit;
  for (;;) {
    RedisServer* promoted = master_seen_for(slot);
    bool ok = promoted != nullptr;
    for (const auto& server : servers_)
      if (ok && server &&
          server->cli({"CLUSTER", "INFO"}).find("cluster_state:ok") == std::string::npos)
        ok = false;
    if (ok) return *promoted;
    if (Clock::now() >= deadline)
      throw std::runtime_error("redis cluster: no replica took over slot " + std::to_string(slot));
    std::this_thread::sleep_for(kPollInterval);
  }
}

void RedisCluster::move_slot(int slot, RedisServer& to, const std::function<void()>& between) {
  RedisServer& from = master_of(slot);
  if (&from == &to) return;
  const std::string number = std::to_string(slot);
  const std::string from_id = from.cli({"CLUSTER", "MYID"});
  const std::string to_id = to.cli({"CLUSTER", "MYID"});
  to.cli({"CLUSTER", "SETSLOT", number, "IMPORTING", from_id});
  from.cli({"CLUSTER", "SETSLOT", number, "MIGRATING", to_id});
  for (;;) {
    const auto keys = lines_of(from.cli({"CLUSTER", "GETKEYSINSLOT", number, "100"}));
    if (keys.empty() || keys.front().empty()) break;
    for (const auto& key : keys)
      from.cli({"MIGRATE", "127.0.0.1", std::to_string(to.port()), key, "0", "5000"});
  }
  if (between) between();
  for (const auto& server : servers_)
    if (server && server->cli({"ROLE"}).rfind("master", 0) == 0)
      server->cli({"CLUSTER", "SETSLOT", number, "NODE", to_id});
}

int RedisCluster::key_slot(const std::string& key) const {
  for (const auto& server : servers_)
    if (server) return std::stoi(server->cli({"CLUSTER", "KEYSLOT", key}));
  throw std::runtime_error("redis cluster: every node is gone");
}

}  // namespace distlock::testing
