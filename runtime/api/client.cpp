// SPDX-License-Identifier: Apache-2.0
#include <distlock/client.h>

#include "core/client_core.h"
#include "util/url.h"

namespace distlock {

std::shared_ptr<Client> Client::connect(std::string_view url, const Options& options) {
  if (!(options.renew_fraction > 0.0 && options.renew_fraction < 1.0))
    throw ConfigError("", detail::parse_url(url).redacted(),
                      "Options::renew_fraction must be between 0 and 1 (exclusive)");
  return std::shared_ptr<Client>(new Client(detail::ClientCore::connect(url, options)));
}

Client::Client(std::shared_ptr<detail::ClientCore> core) : core_(std::move(core)) {}

Client::~Client() = default;

Lease Client::acquire(const LockSpec& spec, const Key& key) {
  return {Lease::Relocation{}, *core_->acquire(spec, key, detail::IfBusy::wait_then_throw)};
}

std::optional<Lease> Client::try_acquire(const LockSpec& spec, const Key& key) {
  auto lease = core_->acquire(spec, key, detail::IfBusy::return_empty_at_once);
  if (!lease) return std::nullopt;
  return std::optional<Lease>(std::in_place, Lease::Relocation{}, std::move(*lease));
}

AsyncAcquisition Client::acquire_async(const LockSpec& spec, const Key& key,
                                       AcquireHandler handler) {
  return core_->acquire_async(spec, key, std::move(handler));
}

Leadership Client::campaign(const ElectionSpec& election) {
  return std::move(*core_->campaign(election, detail::IfBusy::wait_then_throw));
}

std::optional<Leadership> Client::try_campaign(const ElectionSpec& election) {
  return core_->campaign(election, detail::IfBusy::return_empty_at_once);
}

AsyncAcquisition Client::campaign_async(const ElectionSpec& election, CampaignHandler handler) {
  return core_->campaign_async(election, std::move(handler));
}

const std::string& Client::server() const { return core_->server(); }

ClientStats Client::stats() const { return core_->stats().snapshot(); }

}  // namespace distlock
