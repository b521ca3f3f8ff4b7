// SPDX-License-Identifier: Apache-2.0
#include "redis_sentinel_group.h"

#include <signal.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace distlock::testing {
namespace {

using Clock = std::chrono::steady_clock;

// Sentinel and replication state are polled: neither tells a client when it changes except
// through its own pub/sub, which would need a client here.
constexpr auto kPollInterval = std::chrono::milliseconds(50);
constexpr auto kStartLimit = std::chrono::seconds(30);

// The value after `field` in a redis-cli rendering of a flat field/value array.
std::string field_of(const std::string& reply, std::string_view field) {
  const auto lines = lines_of(reply);
  for (std::size_t i = 0; i + 1 < lines.size(); ++i)
    if (lines[i] == field) return lines[i + 1];
  return {};
}

std::string role_of(const RedisServer& server) {
  try {
    const auto lines = lines_of(server.cli({"ROLE"}));
    return lines.empty() ? std::string() : lines.front();
  } catch (const std::runtime_error&) {
    return {};
  }
}

template <class Condition>
void wait_for(Condition&& condition, Clock::time_point deadline, const std::string& what) {
  while (!condition()) {
    if (Clock::now() >= deadline) throw std::runtime_error("sentinel group: " + what);
    std::this_thread::sleep_for(kPollInterval);
  }
}

std::string password_in(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--requirepass") return args[i + 1];
  return {};
}

}  // namespace

SentinelGroup::SentinelGroup(int replicas, std::vector<std::string> server_args,
                             std::optional<ServerTls> tls, ServerReach reach)
    : tls_(std::move(tls)), reach_(reach) {
  // Replicas sync at once rather than after the default 5 s, which waits for more replicas
  // to share one transfer; any server may be master after a failover.
  server_args.insert(server_args.end(), {"--repl-diskless-sync-delay", "0"});
  if (tls_) server_args.insert(server_args.end(), {"--tls-replication", "yes"});
  server_args_ = server_args;
  master_port_ = proxies_.announced_port(start_server(server_args).port());
  for (int i = 0; i < replicas; ++i) start_replica();
  if (!wait_for_replicas(*servers_.front(), replicas, kStartLimit))
    throw std::runtime_error("sentinel group: the replicas did not sync with the master");

  std::string config = "sentinel monitor " + std::string(kMasterName) + " 127.0.0.1 " +
                       std::to_string(master_port_) + " 2\n";
  config += "sentinel down-after-milliseconds " + std::string(kMasterName) + " 1000\n";
  config += "sentinel failover-timeout " + std::string(kMasterName) + " 10000\n";
  const std::string password = password_in(server_args_);
  if (!password.empty())
    config += "sentinel auth-pass " + std::string(kMasterName) + " " + password + "\n";
  // A sentinel reaches the servers and the other sentinels over TLS too.
  if (tls_) config += "tls-replication yes\n";
  for (int i = 0; i < 3; ++i) sentinels_.push_back(RedisServer::sentinel(config, tls_));
  wait_until_ready(kStartLimit);
}

RedisServer& SentinelGroup::start_server(std::vector<std::string> args) {
  const std::string password = password_in(args);
  if (!password.empty()) args.insert(args.end(), {"--masterauth", password});
  RedisServer& server = *servers_.emplace_back(std::make_unique<RedisServer>(args, tls_));
  if (reach_ == ServerReach::through_proxies) {
    const TcpProxy& proxy = proxies_.put_before(server.port());
    // What a replica tells its master (and so the sentinels) to reach it at.
    server.cli({"CONFIG", "SET", "replica-announce-ip", "127.0.0.1", "replica-announce-port",
                std::to_string(proxy.port())});
  }
  return server;
}

RedisServer& SentinelGroup::start_replica() {
  RedisServer& replica = start_server(server_args_);
  replica.cli({"REPLICAOF", "127.0.0.1", std::to_string(master_port_)});
  return replica;
}

void SentinelGroup::judge_master_down_after(std::chrono::milliseconds silence) {
  for (const auto& sentinel : sentinels_)
    sentinel->cli({"SENTINEL", "SET", kMasterName, "down-after-milliseconds",
                   std::to_string(silence.count())});
}

std::vector<TcpProxy*> SentinelGroup::server_proxies() const { return proxies_.all(); }

SentinelGroup::~SentinelGroup() = default;

void SentinelGroup::wait_until_ready(std::chrono::seconds limit) const {
  const auto deadline = Clock::now() + limit;
  const auto replicas = std::to_string(servers_.size() - 1);
  for (const auto& sentinel : sentinels_) {
    wait_for(
        [&] {
          const auto state = sentinel->cli({"SENTINEL", "master", kMasterName});
          return field_of(state, "num-slaves") == replicas &&
                 field_of(state, "num-other-sentinels") == "2";
        },
        deadline, "the sentinels did not learn of every replica and of each other");
  }
}

std::string SentinelGroup::url() const {
  std::string url = tls_ ? "rediss+sentinel://" : "redis+sentinel://";
  for (std::size_t i = 0; i < sentinels_.size(); ++i)
    url += (i == 0 ? "" : ",") + std::string("127.0.0.1:") + std::to_string(sentinels_[i]->port());
  return url + "/" + kMasterName;
}

std::vector<std::uint16_t> SentinelGroup::sentinel_ports() const {
  std::vector<std::uint16_t> ports;
  ports.reserve(sentinels_.size());
  for (const auto& sentinel : sentinels_) ports.push_back(sentinel->port());
  return ports;
}

std::vector<const RedisServer*> SentinelGroup::sentinels() const {
  std::vector<const RedisServer*> sentinels;
  sentinels.reserve(sentinels_.size());
  for (const auto& sentinel : sentinels_) sentinels.push_back(sentinel.get());
  return sentinels;
}

RedisServer* SentinelGroup::server_on(std::uint16_t announced) {
  for (const auto& server : servers_)
    if (server && proxies_.announced_port(server->port()) == announced) return server.get();
  return nullptr;
}

RedisServer& SentinelGroup::master() {
  RedisServer* server = server_on(master_port_);
  if (server == nullptr) throw std::runtime_error("sentinel group: the master is gone");
  return *server;
}

std::vector<RedisServer*> SentinelGroup::replicas() {
  std::vector<RedisServer*> replicas;
  for (const auto& server : servers_)
    if (server && proxies_.announced_port(server->port()) != master_port_)
      replicas.push_back(server.get());
  return replicas;
}

RedisServer& SentinelGroup::add_replica() {
  RedisServer& master = this->master();
  RedisServer& replica = start_replica();
  if (!wait_for_replicas(master, static_cast<int>(replicas().size()), kStartLimit))
    throw std::runtime_error("sentinel group: the new replica did not sync with the master");
  return replica;
}

std::uint16_t SentinelGroup::master_port_by_sentinels() const {
  for (const auto& sentinel : sentinels_) {
    try {
      const auto lines =
          lines_of(sentinel->cli({"SENTINEL", "get-master-addr-by-name", kMasterName}));
      if (lines.size() >= 2) return static_cast<std::uint16_t>(std::stoi(lines[1]));
    } catch (const std::exception&) {
      // Ask the next one.
    }
  }
  return 0;
}

RedisServer& SentinelGroup::kill_master_and_wait_for_failover(std::chrono::seconds limit) {
  const std::uint16_t old_port = master_port_;
  RedisServer& killed = master();
  ::kill(killed.pid(), SIGKILL);
  proxies_.remove(killed.port());
  for (auto& server : servers_)
    if (server.get() == &killed) server.reset();
  return wait_for_new_master(old_port, limit);
}

RedisServer& SentinelGroup::fail_over_and_wait(std::chrono::seconds limit) {
  const std::uint16_t old_port = master_port_;
  sentinels_.front()->cli({"SENTINEL", "FAILOVER", kMasterName});
  return wait_for_new_master(old_port, limit);
}

RedisServer& SentinelGroup::wait_for_new_master(std::uint16_t old_port,
                                                std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  std::uint16_t new_port = 0;
  wait_for(
      [&] {
        new_port = master_port_by_sentinels();
        return new_port != 0 && new_port != old_port && server_on(new_port) != nullptr;
      },
      deadline, "no replica was promoted");
  RedisServer& promoted = *server_on(new_port);
  wait_for([&] { return role_of(promoted) == "master"; }, deadline,
           "the promoted replica does not answer ROLE as master");
  master_port_ = new_port;
  const int others =
      static_cast<int>(std::count_if(servers_.begin(), servers_.end(), [&](const auto& s) {
        return s && proxies_.announced_port(s->port()) != new_port;
      }));
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (!wait_for_replicas(promoted, others, std::max(left, std::chrono::milliseconds(0))))
    throw std::runtime_error(
        "sentinel group: the other servers did not become replicas of the new master");
  return promoted;
}

}  // namespace distlock::testing
