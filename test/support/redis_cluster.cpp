#include "redis_cluster.h"

#include <sstream>
#include <stdexcept>
#include <thread>

namespace distlock::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kReadyLimit = std::chrono::seconds(30);
// The cluster's state is polled: nodes tell a client of changes only through their logs.
constexpr auto kPollInterval = std::chrono::milliseconds(50);

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

RedisCluster::RedisCluster(int masters, int replicas_per_master) : masters_(masters) {
  const int count = masters * (1 + replicas_per_master);
  for (int i = 0; i < count; ++i)
    servers_.push_back(std::make_unique<RedisServer>(std::vector<std::string>{
        "--cluster-enabled", "yes", "--cluster-node-timeout", "2000",
        // The bus port would be the port + 10000, beyond 65535 for many free ports.
        "--cluster-port", std::to_string(free_loopback_port()),
        // A replica syncs at once, not after the default 5 s.
        "--repl-diskless-sync-delay", "0"}));
  std::vector<std::string> create = {"--cluster", "create"};
  for (const auto& server : servers_)
    create.push_back("127.0.0.1:" + std::to_string(server->port()));
  create.insert(create.end(),
                {"--cluster-replicas", std::to_string(replicas_per_master), "--cluster-yes"});
  servers_.front()->cli(create);

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

std::string RedisCluster::url() const {
  std::string url = "redis+cluster://";
  for (int i = 0; i < masters_; ++i)
    url += (i == 0 ? "127.0.0.1:" : ",127.0.0.1:") + std::to_string(servers_[i]->port());
  return url;
}

RedisServer& RedisCluster::master_of(int slot) const {
  // CLUSTER NODES: "<id> <ip:port@bus-port> <flags> <master> <ping> <pong> <epoch> <link>
  // <slot ranges...>", one line per node; a range is "a-b" or "a" ("[...]" while migrating).
  for (const auto& line : lines_of(servers_.front()->cli({"CLUSTER", "NODES"}))) {
    std::istringstream fields(line);
    std::string id, address, flags, master, ping, pong, epoch, link;
    fields >> id >> address >> flags >> master >> ping >> pong >> epoch >> link;
    if (flags.find("master") == std::string::npos) continue;
    for (std::string range; fields >> range;) {
      if (range.front() == '[') continue;
      const auto dash = range.find('-');
      const int first = std::stoi(range.substr(0, dash));
      const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
      if (slot < first || slot > last) continue;
      const std::string port =
          address.substr(address.find(':') + 1, address.find('@') - address.find(':') - 1);
      for (const auto& server : servers_)
        if (std::to_string(server->port()) == port) return *server;
    }
  }
  throw std::runtime_error("redis cluster: no master found for slot " + std::to_string(slot));
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
  for (int i = 0; i < masters_; ++i) {
    RedisServer& master = *servers_[static_cast<std::size_t>(i)];
    if (master.cli({"ROLE"}).rfind("master", 0) == 0)
      master.cli({"CLUSTER", "SETSLOT", number, "NODE", to_id});
  }
}

int RedisCluster::key_slot(const std::string& key) const {
  return std::stoi(servers_.front()->cli({"CLUSTER", "KEYSLOT", key}));
}

}  // namespace distlock::testing
