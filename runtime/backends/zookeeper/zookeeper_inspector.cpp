// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/zookeeper_inspector.h"

#include "backends/zookeeper/force_release.h"
#include "backends/zookeeper/lock_listing.h"
#include "backends/zookeeper/lock_nodes.h"
#include "backends/zookeeper/requests.h"
#include "backends/zookeeper/session_keeper.h"
#include "backends/zookeeper/settings.h"
#include "backends/zookeeper/status.h"
#include "core/stats.h"

namespace distlock::detail::zookeeper {
namespace {

class ZooKeeperInspector final : public LockInspector {
 public:
  explicit ZooKeeperInspector(ZooKeeperSettings settings)
      : settings_(std::move(settings)),
        requests_(stats_, settings_.command_timeout),
        keeper_(settings_, stats_) {}

  std::vector<admin::LockState> list(std::string_view pattern) override {
    const auto session = ready_session("");
    const LockListing listing(requests_, *session, settings_.server);
    std::vector<admin::LockState> locks;
    for (const auto& [name, path] : listing.names(pattern))
      if (auto state = listing.read(name, path)) locks.push_back(std::move(*state));
    return locks;
  }

  std::optional<admin::LockState> show(std::string_view name) override {
    const auto session = ready_session(name);
    const LockListing listing(requests_, *session, settings_.server);
    return listing.read(std::string(name), lock_path(name));
  }

  std::vector<admin::ReleasedHold> force_release(
      std::string_view name, const std::optional<std::string>& acquisition_id) override {
    const auto session = ready_session(name);
    const LockListing listing(requests_, *session, settings_.server);
    return zookeeper::force_release(listing, requests_, *session, settings_.server,
                                    std::string(name), lock_path(name), acquisition_id);
  }

  std::vector<admin::ServerFacts> servers() override {
    // Asked like the other questions: an ensemble that cannot be reached is an error.
    (void)ready_session("");
    admin::ServerFacts facts;
    facts.server = settings_.server;
    facts.kind = "zookeeper";
    facts.eviction = admin::EvictionRisk::not_applicable;
    facts.reason =
        "ZooKeeper evicts nothing: a lock node lasts as long as its holder's session (or until "
        "it is released)";
    return {facts};
  }

  const std::string& server() const override { return settings_.server; }

 private:
  std::shared_ptr<Session> ready_session(std::string_view lock) {
    if (auto session = keeper_.ready(SteadyClock::now() + settings_.connect_timeout))
      return session;
    throw status::unavailable(lock, settings_.server,
                              "not connected to ZooKeeper within " +
                                  std::to_string(settings_.connect_timeout.count()) +
                                  " ms (connect_timeout)");
  }

  const ZooKeeperSettings settings_;
  StatsCounters stats_;
  const Requests requests_;
  SessionKeeper keeper_;
};

}  // namespace

std::unique_ptr<LockInspector> make_inspector(const Url& url, const Options& options) {
  return std::make_unique<ZooKeeperInspector>(zookeeper_settings(url, options));
}

}  // namespace distlock::detail::zookeeper
