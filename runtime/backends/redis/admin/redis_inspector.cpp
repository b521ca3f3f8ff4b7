// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/admin/redis_inspector.h"

#include <algorithm>
#include <map>

#include <distlock/error.h>

#include "backends/redis/admin/force_release.h"
#include "backends/redis/admin/lock_listing.h"
#include "backends/redis/locks/redis_keys.h"
#include "backends/redis/topology/cluster_slots.h"
#include "backends/redis/transport/connection.h"
#include "backends/redis/transport/connection_settings.h"
#include "backends/redis/transport/eviction_policy.h"
#include "backends/redis/transport/master_locator.h"
#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/server_version.h"
#include "backends/url_schemes.h"

namespace distlock::detail::redis {
namespace {

// Locks read per pipelined round trip.
constexpr std::size_t kLocksPerRead = 100;

// One server and the connection to it.
struct Node {
  explicit Node(ConnectionSettings node_settings)
      : settings(std::move(node_settings)),
        connection(settings, settings.sentinel() ? MasterLocator(settings).current().address
                                                 : settings.address) {}

  ConnectionSettings settings;
  Connection connection;
};

using Nodes = std::vector<std::unique_ptr<Node>>;

// What the node says of its version and its memory policy.
admin::ServerFacts facts_of(Node& node) {
  Connection& connection = node.connection;
  admin::ServerFacts facts;
  facts.server = server_name(connection, node.settings.sentinel());
  facts.kind = "redis";
  const std::string_view hello[] = {"HELLO", "2"};
  facts.version = version_named(*connection.command(hello));
  const MemoryPolicyReading reading = read_memory_policy(connection);
  if (!reading.memory) {
    facts.eviction = admin::EvictionRisk::unchecked;
    facts.reason = reading.unreadable;
    return facts;
  }
  facts.maxmemory = reading.memory->maxmemory;
  facts.maxmemory_policy = reading.memory->policy;
  EvictionVerdict verdict = judge_eviction(*reading.memory);
  facts.eviction =
      verdict.may_evict_locks ? admin::EvictionRisk::at_risk : admin::EvictionRisk::safe;
  facts.reason = std::move(verdict.reason);
  return facts;
}

// With several nodes (a Redlock's masters), each location names its node.
void name_node(std::vector<admin::LockState>& locks, const std::string& node) {
  for (auto& lock : locks) {
    for (auto& hold : lock.holds) hold.location.insert(0, node + ' ');
    for (auto& waiter : lock.waiters) waiter.location.insert(0, node + ' ');
  }
}

void name_node(std::vector<admin::ReleasedHold>& released, const std::string& node) {
  for (auto& one : released) one.hold.location.insert(0, node + ' ');
}

// A Redlock's masters each keep the lock: one state per name, with every master's holds.
std::vector<admin::LockState> merged_by_name(std::vector<admin::LockState> locks) {
  std::map<std::string, admin::LockState> by_name;
  for (auto& lock : locks) {
    const auto known = by_name.find(lock.name);
    if (known == by_name.end()) {
      std::string name = lock.name;
      by_name.emplace(std::move(name), std::move(lock));
      continue;
    }
    std::move(lock.holds.begin(), lock.holds.end(), std::back_inserter(known->second.holds));
    std::move(lock.waiters.begin(), lock.waiters.end(), std::back_inserter(known->second.waiters));
  }
  std::vector<admin::LockState> merged;
  merged.reserve(by_name.size());
  for (auto& entry : by_name) merged.push_back(std::move(entry.second));
  return merged;
}

// Runs `operation` on each node and joins the results, each location prefixed with its node
// where there are several (`nodes` may be some of them). `nodes`: Nodes, or Node pointers.
template <class NodeList, class Operation>
auto on_each_node(const NodeList& nodes, bool several, std::string_view lock,
                  Operation&& operation) {
  decltype(operation(nodes.front()->connection)) all;
  for (const auto& node : nodes) {
    try {
      auto results = operation(node->connection);
      if (several) name_node(results, node->connection.address().describe());
      std::move(results.begin(), results.end(), std::back_inserter(all));
    } catch (const ServerError& error) {
      throw error.for_lock(lock);
    }
  }
  return all;
}

class RedisInspector final : public LockInspector {
 public:
  // `slots`: a cluster's map, whose masters are `nodes` in its order; a lock is read and
  // released on its slot's master only (another master would answer MOVED).
  RedisInspector(std::string server, std::vector<ConnectionSettings> nodes,
                 std::optional<SlotMap> slots = std::nullopt)
      : server_(std::move(server)), slots_(std::move(slots)) {
    for (auto& settings : nodes) {
      try {
        nodes_.push_back(std::make_unique<Node>(std::move(settings)));
      } catch (const ServerError& error) {
        throw error.for_lock("");
      }
    }
  }

  std::vector<admin::LockState> list(std::string_view pattern) override {
    return merged_by_name(on_each_node(nodes_, several(), "", [&](Connection& connection) {
      const auto names = scan_lock_names(connection, pattern);
      std::vector<admin::LockState> locks;
      for (std::size_t first = 0; first < names.size(); first += kLocksPerRead) {
        const std::vector<std::string> batch(
            names.begin() + static_cast<std::ptrdiff_t>(first),
            names.begin() +
                static_cast<std::ptrdiff_t>(std::min(first + kLocksPerRead, names.size())));
        auto read = read_locks(connection, batch);
        std::move(read.begin(), read.end(), std::back_inserter(locks));
      }
      return locks;
    }));
  }

  std::optional<admin::LockState> show(std::string_view name) override {
    auto found =
        merged_by_name(on_each_node(nodes_of(name), several(), name, [&](Connection& connection) {
          return read_locks(connection, {std::string(name)});
        }));
    if (found.empty()) return std::nullopt;
    return std::move(found.front());
  }

  std::vector<admin::ReleasedHold> force_release(
      std::string_view name, const std::optional<std::string>& acquisition_id) override {
    return on_each_node(nodes_of(name), several(), name, [&](Connection& connection) {
      return redis::force_release(connection, std::string(name), acquisition_id, "PUBLISH");
    });
  }

  std::vector<admin::ServerFacts> servers() override {
    std::vector<admin::ServerFacts> facts;
    for (const auto& node : nodes_) {
      try {
        facts.push_back(facts_of(*node));
      } catch (const ServerError& error) {
        throw error.for_lock("");
      }
    }
    return facts;
  }

  const std::string& server() const override { return server_; }

 private:
  bool several() const { return nodes_.size() > 1; }
  // Every node, or on a cluster the master of the lock's slot.
  std::vector<Node*> nodes_of(std::string_view name) const {
    if (slots_) {
      const int master =
          slots_->master_of_slot[static_cast<std::size_t>(hash_slot(lock_key(name)))];
      if (master < 0)
        throw BackendUnavailable(std::string(name), server_,
                                 "no master serves the slot of this lock");
      return {nodes_[static_cast<std::size_t>(master)].get()};
    }
    std::vector<Node*> all;
    for (const auto& node : nodes_) all.push_back(node.get());
    return all;
  }

  const std::string server_;
  const std::optional<SlotMap> slots_;
  Nodes nodes_;
};

}  // namespace

std::unique_ptr<LockInspector> make_inspector(const Url& url, const Options& options) {
  std::vector<ConnectionSettings> nodes;
  const std::string topology = redis_topology(url);
  if (topology == "redis+cluster") {
    // Read once: a slot that moves while the command runs shows as an error (MOVED) naming it.
    const std::vector<Address> seeds = seeds_of(url);
    SlotMap slots = read_slot_map(connection_settings(url_of_node(url, seeds.front()), options),
                                  seeds, url.redacted());
    for (const auto& master : slots.masters)
      nodes.push_back(connection_settings(url_of_node(url, master), options));
    return std::make_unique<RedisInspector>(url.redacted(), std::move(nodes), std::move(slots));
  }
  if (topology == "redis+redlock") {
    for (const auto& endpoint : url.endpoints) {
      Url one = url;
      one.scheme = uses_tls(url) ? "rediss" : "redis";
      one.endpoints = {endpoint};
      nodes.push_back(connection_settings(one, options));
    }
  } else {
    nodes.push_back(connection_settings(url, options));
  }
  return std::make_unique<RedisInspector>(url.redacted(), std::move(nodes));
}

}  // namespace distlock::detail::redis
