// SPDX-License-Identifier: Apache-2.0
// distlock::admin::LockAdmin: the URL picks the backend's inspector; the rest is the
// inspector's.
#include <fnmatch.h>

#include <algorithm>

#include <distlock/admin.h>
#include <distlock/error.h>

#include "admin/lock_inspector.h"
#include "backends/redis/admin/redis_inspector.h"
#if DISTLOCK_WITH_ZOOKEEPER
#include "backends/zookeeper/zookeeper_inspector.h"
#endif
#if DISTLOCK_WITH_POSTGRESQL
#include "backends/postgres/postgres_inspector.h"
#include "backends/postgres/settings.h"
#endif
#if DISTLOCK_WITH_ETCD
#include "backends/etcd/etcd_inspector.h"
#endif
#include "backends/url_schemes.h"
#include "util/url.h"

namespace distlock {
namespace detail {
namespace {

std::unique_ptr<LockInspector> make_inspector(std::string_view text, const Options& options) {
#if DISTLOCK_WITH_POSTGRESQL
  // libpq's own URIs, which it parses itself (postgres/settings.h), as the backend does.
  if (postgres::is_postgres_url(text)) return postgres::make_inspector(text, options);
#endif
  const Url url = parse_url(text);
  if (url.scheme == "memory")
    throw ConfigError("", url.redacted(),
                      "memory:// locks live inside the process that takes them: another process "
                      "cannot see or release them; inspect them from that process, or use a "
                      "Redis, ZooKeeper, etcd or PostgreSQL URL");
  // The command takes a service's URL as the service has it, query keys and all.
  const Options configured = options_for_scheme(url, options);
  if (url.scheme.starts_with("redis")) return redis::make_inspector(url, configured);
#if DISTLOCK_WITH_ZOOKEEPER
  if (url.scheme == "zookeeper") return zookeeper::make_inspector(url, configured);
#endif
#if DISTLOCK_WITH_ETCD
  if (url.scheme == "etcd" || url.scheme == "etcds") return etcd::make_inspector(url, configured);
#endif
  throw unknown_scheme(url);
}

// A lock name as the runtime writes it (api/key.cpp): every byte that could break a Redis hash
// tag or a ZooKeeper path, and every byte outside printable ASCII, is %-escaped. Anything else
// is a typo, and must not reach the server as a key or a path.
void check_name(std::string_view name, const std::string& server) {
  const auto bad = std::find_if(name.begin(), name.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte == '{' || byte == '}' || byte == '/' || byte < 0x20 || byte > 0x7e;
  });
  if (name.empty() || bad != name.end())
    throw ConfigError(std::string(name), server,
                      "not a lock name as distlock writes them (<type>:<key>, with '{', '}', '/', "
                      "control and non-ASCII bytes %-escaped); copy it from distlock list");
}

}  // namespace

bool name_matches(std::string_view pattern, std::string_view name) {
  if (pattern.empty()) return true;
  return fnmatch(std::string(pattern).c_str(), std::string(name).c_str(), 0) == 0;
}

}  // namespace detail

namespace admin {

const char* to_string(HoldKind kind) {
  switch (kind) {
    case HoldKind::exclusive:
      break;
    case HoldKind::fair:
      return "fair";
    case HoldKind::read:
      return "read";
    case HoldKind::write:
      return "write";
    case HoldKind::semaphore:
      return "semaphore";
  }
  return "exclusive";
}

const char* to_string(EvictionRisk risk) {
  switch (risk) {
    case EvictionRisk::safe:
      return "safe";
    case EvictionRisk::at_risk:
      return "at_risk";
    case EvictionRisk::unchecked:
      break;
    case EvictionRisk::not_applicable:
      return "not_applicable";
  }
  return "unchecked";
}

std::unique_ptr<LockAdmin> LockAdmin::connect(std::string_view url, const Options& options) {
  return std::make_unique<LockAdmin>(detail::make_inspector(url, options));
}

LockAdmin::LockAdmin(std::unique_ptr<detail::LockInspector> inspector)
    : inspector_(std::move(inspector)) {}

LockAdmin::~LockAdmin() = default;

std::vector<LockState> LockAdmin::list(std::string_view pattern) {
  auto locks = inspector_->list(pattern);
  std::sort(locks.begin(), locks.end(),
            [](const LockState& a, const LockState& b) { return a.name < b.name; });
  return locks;
}

std::optional<LockState> LockAdmin::show(std::string_view name) {
  detail::check_name(name, server());
  return inspector_->show(name);
}

std::vector<ReleasedHold> LockAdmin::force_release(
    std::string_view name, const std::optional<std::string>& acquisition_id) {
  detail::check_name(name, server());
  return inspector_->force_release(name, acquisition_id);
}

std::vector<ServerFacts> LockAdmin::servers() { return inspector_->servers(); }

const std::string& LockAdmin::server() const { return inspector_->server(); }

std::vector<ServerFacts> describe_servers(std::string_view url, const Options& options) {
#if DISTLOCK_WITH_POSTGRESQL
  // parse_url does not take every URL libpq does.
  if (detail::postgres::is_postgres_url(url)) return LockAdmin::connect(url, options)->servers();
#endif
  const detail::Url parsed = detail::parse_url(url);
  if (parsed.scheme != "memory") return LockAdmin::connect(url, options)->servers();
  // Its query keys are checked as a client's are.
  (void)detail::options_for_scheme(parsed, options);
  ServerFacts facts;
  facts.server = parsed.redacted();
  facts.kind = "memory";
  facts.eviction = EvictionRisk::not_applicable;
  facts.reason =
      "in-process: the lock table lives in the process that takes the locks, and nothing evicts "
      "from it";
  return {facts};
}

}  // namespace admin
}  // namespace distlock
