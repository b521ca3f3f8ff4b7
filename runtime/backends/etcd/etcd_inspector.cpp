// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/etcd_inspector.h"

#include <utility>

#include <distlock/error.h>

#include "backends/etcd/lock_listing.h"
#include "backends/etcd/rpc_client.h"
#include "backends/etcd/settings.h"

namespace distlock::detail::etcd {
namespace {

class EtcdInspector final : public LockInspector {
 public:
  explicit EtcdInspector(EtcdSettings settings) : settings_(std::move(settings)), rpc_(settings_) {
    try {
      rpc_.check_reachable();
    } catch (const RpcError& error) {
      throw BackendUnavailable("", settings_.server, error.reason());
    }
  }

  std::vector<admin::LockState> list(std::string_view pattern) override {
    return LockListing(rpc_, settings_.server).list(pattern);
  }

  std::optional<admin::LockState> show(std::string_view name) override {
    return LockListing(rpc_, settings_.server).read(std::string(name));
  }

  std::vector<admin::ReleasedHold> force_release(
      std::string_view name, const std::optional<std::string>& acquisition_id) override {
    std::vector<admin::ReleasedHold> released;
    const auto state = show(name);
    if (!state) return released;
    for (const auto& hold : state->holds) {
      if (acquisition_id && hold.holder.acquisition_id != *acquisition_id) continue;
      // Deleted only if it is the key listed, not one put since under the same name.
      etcdserverpb::TxnRequest txn;
      auto* listed = txn.add_compare();
      listed->set_key(hold.location);
      listed->set_target(etcdserverpb::Compare::CREATE);
      listed->set_result(etcdserverpb::Compare::EQUAL);
      listed->set_create_revision(static_cast<std::int64_t>(hold.fence));
      txn.add_success()->mutable_request_delete_range()->set_key(hold.location);
      try {
        if (rpc_.txn(txn, rpc_.command_deadline()).succeeded())
          released.push_back(admin::ReleasedHold{std::string(name), hold});
      } catch (const RpcError& error) {
        throw BackendUnavailable(std::string(name), settings_.server, error.reason());
      }
    }
    return released;
  }

  std::vector<admin::ServerFacts> servers() override {
    admin::ServerFacts facts;
    facts.server = settings_.server;
    facts.kind = "etcd";
    try {
      facts.version = rpc_.server_version(rpc_.command_deadline());
    } catch (const RpcError& error) {
      throw BackendUnavailable("", settings_.server, error.reason());
    }
    facts.eviction = admin::EvictionRisk::not_applicable;
    facts.reason =
        "etcd evicts nothing: a lock key lasts as long as its holder's lease (or until it is "
        "released)";
    return {facts};
  }

  const std::string& server() const override { return settings_.server; }

 private:
  const EtcdSettings settings_;
  RpcClient rpc_;
};

}  // namespace

std::unique_ptr<LockInspector> make_inspector(const Url& url, const Options& options) {
  return std::make_unique<EtcdInspector>(etcd_settings(url, options));
}

}  // namespace distlock::detail::etcd
