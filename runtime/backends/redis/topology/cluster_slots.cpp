// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/topology/cluster_slots.h"

#include <algorithm>

#include <distlock/error.h>

#include "backends/redis/transport/connection.h"
#include "backends/redis/transport/reply.h"
#include "backends/redis/transport/server_error.h"
#include "backends/url_schemes.h"

namespace distlock::detail::redis {

SlotMap read_slot_map(const ConnectionSettings& settings, const std::vector<Address>& candidates,
                      const std::string& server, SteadyClock::time_point caller_deadline) {
  std::string failures;
  const auto failed = [&](const Address& node, const std::string& why) {
    failures += (failures.empty() ? "" : "; ") + node.describe() + why;
  };
  std::vector<Address> asked;
  for (const auto& node : candidates) {
    if (std::find(asked.begin(), asked.end(), node) != asked.end()) continue;
    asked.push_back(node);
    if (caller_wait_over(caller_deadline)) {
      failed(node, " not asked: the wait ended first");
      continue;
    }
    try {
      Connection connection(settings, node, 0, caller_deadline);
      const auto limit = connection.limit_to_caller(caller_deadline);
      const std::string_view ask[] = {"CLUSTER", "SLOTS"};
      const Reply reply = connection.command(ask);
      if (is_error(*reply)) {
        failed(node, " is not a cluster node (" + describe_reply(*reply) +
                         "); for one server write redis://");
        continue;
      }
      if (reply->type != REDIS_REPLY_ARRAY) {
        failed(node, ": CLUSTER SLOTS gave " + describe_reply(*reply));
        continue;
      }
      SlotMap map;
      map.master_of_slot.fill(-1);
      for (std::size_t i = 0; i < reply->elements; ++i) {
        const redisReply& range = *reply->element[i];
        if (range.type != REDIS_REPLY_ARRAY || range.elements < 3) continue;
        const redisReply& master = *range.element[2];
        if (master.type != REDIS_REPLY_ARRAY || master.elements < 2) continue;
        std::string host(reply_text(*master.element[0]));
        // An empty host: the node asked does not know its own address; it is the one asked.
        if (host.empty()) host = node.host;
        const Address address{host, static_cast<std::uint16_t>(master.element[1]->integer), {}};
        auto found = std::find(map.masters.begin(), map.masters.end(), address);
        if (found == map.masters.end()) found = map.masters.insert(map.masters.end(), address);
        const int index = static_cast<int>(found - map.masters.begin());
        for (long long slot = range.element[0]->integer;
             slot <= range.element[1]->integer && slot < kHashSlots; ++slot)
          if (slot >= 0) map.master_of_slot[static_cast<std::size_t>(slot)] = index;
      }
      return map;
    } catch (const ServerError& error) {
      failed(node, ": " + error.reason());
    }
  }
  throw BackendUnavailable("", server, "no cluster node gave its slot map (" + failures + ")");
}

Url url_of_node(const Url& cluster, const Address& address) {
  Url node = cluster;
  // Every node, a MOVED or ASK target as much as a seed, over TLS when the cluster's URL is
  // rediss+cluster://.
  node.scheme = uses_tls(cluster) ? "rediss" : "redis";
  node.endpoints = {Endpoint{address.host, address.port}};
  return node;
}

std::vector<Address> seeds_of(const Url& cluster) {
  std::vector<Address> seeds;
  seeds.reserve(cluster.endpoints.size());
  for (const auto& seed : cluster.endpoints)
    seeds.push_back({seed.host, seed.port.value_or(6379), {}});
  return seeds;
}

}  // namespace distlock::detail::redis
