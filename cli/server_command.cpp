// SPDX-License-Identifier: Apache-2.0
// distlock server: what the servers behind the URL say of themselves, and whether they may
// evict lock keys.
#include <iostream>

#include "command.h"
#include "lock_json.h"

namespace distlock::cli {
namespace {

const char* verdict_text(admin::EvictionRisk risk) {
  switch (risk) {
    case admin::EvictionRisk::safe:
      return "safe";
    case admin::EvictionRisk::at_risk:
      return "AT RISK";
    case admin::EvictionRisk::unchecked:
      break;
    case admin::EvictionRisk::not_applicable:
      return "does not apply";
  }
  return "could not be checked";
}

// "Redis 7.0.15, maxmemory 67108864 bytes, maxmemory-policy volatile-lru"
std::string settings_text(const admin::ServerFacts& facts) {
  if (facts.kind == "memory") return "in-process (memory://)";
  if (facts.kind == "zookeeper") return "ZooKeeper";
  if (facts.kind == "postgresql")
    return "PostgreSQL " + (facts.version.empty() ? "(version not named)" : facts.version);
  if (facts.kind == "etcd")
    return "etcd " + (facts.version.empty() ? "(version not named)" : facts.version);
  std::string text = "Redis " + (facts.version.empty() ? "(version not named)" : facts.version);
  if (!facts.maxmemory) return text + ", maxmemory and maxmemory-policy unknown";
  text += *facts.maxmemory == 0 ? ", maxmemory 0 (no limit)"
                                : ", maxmemory " + std::to_string(*facts.maxmemory) + " bytes";
  return text + ", maxmemory-policy " + facts.maxmemory_policy;
}

}  // namespace

int describe_servers(const GlobalOptions& options) {
  const auto servers = admin::describe_servers(server_url(options));
  if (options.json) {
    std::cout << servers_document(servers) << '\n';
    return kOk;
  }
  for (const auto& facts : servers)
    std::cout << facts.server << "\n  " << settings_text(facts)
              << "\n  eviction: " << verdict_text(facts.eviction) << ": " << facts.reason << '\n';
  return kOk;
}

}  // namespace distlock::cli
