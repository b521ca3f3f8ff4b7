// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/eviction_policy.h"

#include <distlock/log.h>

#include "backends/redis/transport/connection.h"
#include "backends/redis/transport/reply.h"
#include "util/decimal.h"
#include "util/failure_message.h"

namespace distlock::detail::redis {
namespace {

constexpr std::string_view kWhatToConfigure =
    "set maxmemory-policy noeviction on the server that keeps the locks (or no maxmemory on a "
    "server that keeps only locks)";

// The value of the INFO line `<name>:<value>`; nullopt when there is no such line.
std::optional<std::string_view> info_field(std::string_view info, std::string_view name) {
  while (!info.empty()) {
    const auto end = info.find('\n');
    std::string_view line = info.substr(0, end);
    info = end == std::string_view::npos ? std::string_view() : info.substr(end + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.size() > name.size() && line.starts_with(name) && line[name.size()] == ':')
      return line.substr(name.size() + 1);
  }
  return std::nullopt;
}

// Which keys `policy` takes when memory runs out: lock keys, in every case but noeviction.
const char* what_runs_out_evicts(std::string_view policy) {
  if (policy.starts_with("volatile-"))
    return ": when memory runs out the server evicts keys that have a ttl, and every lock key has "
           "one";
  if (policy.starts_with("allkeys-"))
    return ": when memory runs out the server evicts any key, lock keys included";
  return ": when memory runs out the server may evict lock keys";
}

}  // namespace

std::optional<MemoryPolicy> parse_memory_info(std::string_view info) {
  const auto maxmemory = info_field(info, "maxmemory");
  const auto policy = info_field(info, "maxmemory_policy");
  if (!maxmemory || !policy || policy->empty()) return std::nullopt;
  const auto bytes = parse_decimal<std::uint64_t>(*maxmemory);
  if (!bytes) return std::nullopt;
  return MemoryPolicy{*bytes, std::string(*policy)};
}

EvictionVerdict judge_eviction(const MemoryPolicy& memory) {
  const std::string policy = "maxmemory-policy " + memory.policy;
  if (memory.maxmemory == 0)
    return {false, "no maxmemory: the server never evicts keys (" + policy +
                       " applies only under a maxmemory)"};
  if (memory.policy == "noeviction")
    return {false, policy +
                       ": a full server refuses writes (an acquisition fails with OOM) "
                       "rather than evict a lock"};
  const std::string limit = " with maxmemory " + std::to_string(memory.maxmemory) + " bytes";
  return {true, policy + limit + what_runs_out_evicts(memory.policy) +
                    "; an evicted lock goes to the next taker while its holder works on until its "
                    "next renewal finds it gone; " +
                    std::string(kWhatToConfigure)};
}

MemoryPolicyReading read_memory_policy(Connection& connection) {
  const std::string_view info[] = {"INFO", "memory"};
  const Reply reply = connection.command(info);
  if (is_error(*reply))
    return {std::nullopt, "INFO memory was refused (" + describe_reply(*reply) +
                              "); give the user +info, or make sure the server's "
                              "maxmemory-policy is noeviction"};
  if (auto memory = parse_memory_info(reply_text(*reply))) return {std::move(memory), {}};
  return {std::nullopt,
          "INFO memory named no maxmemory or maxmemory_policy; make sure the server's "
          "maxmemory-policy is noeviction"};
}

std::string server_name(const Connection& connection, bool master_of_sentinel) {
  if (!master_of_sentinel) return connection.server();
  return connection.server() + " (master " + connection.address().describe() + ")";
}

void warn_if_locks_may_be_evicted(Connection& connection, bool master_of_sentinel) {
  const std::string server = server_name(connection, master_of_sentinel);
  const MemoryPolicyReading reading = read_memory_policy(connection);
  if (!reading.memory) {
    // Not known to be safe: said where the default logger shows it.
    detail::log(LogLevel::warning,
                failure_message("", server,
                                "could not check whether the server may evict lock keys: " +
                                    reading.unreadable));
    return;
  }
  const EvictionVerdict verdict = judge_eviction(*reading.memory);
  if (verdict.may_evict_locks)
    detail::log(LogLevel::warning,
                failure_message("", server, "the server may evict lock keys: " + verdict.reason));
}

}  // namespace distlock::detail::redis
