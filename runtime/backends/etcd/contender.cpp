// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/contender.h"

#include <algorithm>
#include <utility>

namespace distlock::detail::etcd {
namespace {

// etcd's leases count whole seconds: the ttl rounded up, so the server's lease is never the
// shorter (local validity ends first).
std::int64_t lease_seconds(Millis ttl) {
  constexpr std::int64_t kMillisPerSecond = 1000;
  return std::max<std::int64_t>(1, (ttl.count() + kMillisPerSecond - 1) / kMillisPerSecond);
}

}  // namespace

Contender::Contender(RpcClient& rpc, LeaseShelf& shelf, StatsCounters& stats, Millis ttl,
                     std::string value, SteadyClock::time_point caller_deadline)
    : rpc_(rpc),
      shelf_(shelf),
      stats_(stats),
      ttl_(ttl),
      value_(std::move(value)),
      caller_deadline_(caller_deadline) {}

Standing Contender::enter() {
  if (const auto spare = shelf_.take(ttl_)) {
    lease_ = spare->id;
    alive_since_ = spare->alive_since;
    try {
      return put_and_look();
    } catch (const RpcError& error) {
      // Gone after all (revoked by hand, say): a new one, as if the shelf had none.
      if (error.code() != grpc::StatusCode::NOT_FOUND) throw;
    }
  }
  alive_since_ = SteadyClock::now();
  ++stats_.round_trips;
  lease_ = rpc_.lease_grant(lease_seconds(ttl_), step_until()).id();
  return put_and_look();
}

bool Contender::keep_alive() {
  const auto sent_at = SteadyClock::now();
  ++stats_.round_trips;
  const std::int64_t leases[] = {lease_};
  if (rpc_.keep_alive(leases, step_until()).front() <= 0) return false;
  kept_alive(sent_at);
  return true;
}

void Contender::leave() {
  if (lease_ != 0) rpc_.lease_revoke_unawaited(lease_);
  lease_ = 0;
  revision_ = 0;
  key_.clear();
}

SteadyClock::time_point Contender::keep_alive_due() const { return alive_since_ + ttl_ / 3; }

void Contender::holds_through(std::string key, std::int64_t revision) {
  key_ = std::move(key);
  revision_ = revision;
}

}  // namespace distlock::detail::etcd
