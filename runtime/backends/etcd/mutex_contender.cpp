// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/mutex_contender.h"

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

MutexContender::MutexContender(RpcClient& rpc, LeaseShelf& shelf, StatsCounters& stats,
                               std::string prefix, Millis ttl, std::string value)
    : rpc_(rpc),
      shelf_(shelf),
      stats_(stats),
      prefix_(std::move(prefix)),
      ttl_(ttl),
      value_(std::move(value)) {}

etcdserverpb::RangeRequest MutexContender::children() const {
  etcdserverpb::RangeRequest request;
  request.set_key(prefix_ + '/');
  request.set_range_end(children_range_end(prefix_));
  request.set_keys_only(true);
  return request;
}

Standing MutexContender::enter() {
  etcdserverpb::TxnResponse reply;
  if (const auto spare = shelf_.take(ttl_)) {
    lease_ = spare->id;
    alive_since_ = spare->alive_since;
    try {
      reply = put_and_list();
    } catch (const RpcError& error) {
      // Gone after all (revoked by hand, say): a new one, as if the shelf had none.
      if (error.code() != grpc::StatusCode::NOT_FOUND) throw;
      lease_ = 0;
    }
  }
  if (lease_ == 0) {
    alive_since_ = SteadyClock::now();
    ++stats_.round_trips;
    lease_ = rpc_.lease_grant(lease_seconds(ttl_), rpc_.command_deadline()).id();
    reply = put_and_list();
  }
  if (reply.succeeded()) {
    revision_ = reply.header().revision();
  } else {
    const auto& own = reply.responses(0).response_range();
    revision_ = own.kvs_size() > 0 ? own.kvs(0).create_revision() : 0;
  }
  return standing_in(reply.responses(1).response_range());
}

etcdserverpb::TxnResponse MutexContender::put_and_list() {
  key_ = contender_key(prefix_, lease_);
  // As etcd's Mutex: put the key unless it is there (a retry whose first reply was lost), and
  // list the contenders in the same revision.
  etcdserverpb::TxnRequest request;
  auto* absent = request.add_compare();
  absent->set_key(key_);
  absent->set_target(etcdserverpb::Compare::CREATE);
  absent->set_result(etcdserverpb::Compare::EQUAL);
  absent->set_create_revision(0);
  auto* put = request.add_success()->mutable_request_put();
  put->set_key(key_);
  put->set_value(value_);
  put->set_lease(lease_);
  *request.add_success()->mutable_request_range() = children();
  request.add_failure()->mutable_request_range()->set_key(key_);
  *request.add_failure()->mutable_request_range() = children();
  ++stats_.round_trips;
  return rpc_.txn(request, rpc_.command_deadline());
}

Standing MutexContender::look() {
  ++stats_.round_trips;
  return standing_in(rpc_.range(children(), rpc_.command_deadline()));
}

Standing MutexContender::standing_in(const etcdserverpb::RangeResponse& listing) const {
  Standing standing;
  standing.listed_at = listing.header().revision();
  const auto contenders = contenders_of(prefix_, listing.kvs());
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    if (contenders[i].key != key_ || contenders[i].create_revision != revision_) continue;
    if (i == 0) {
      standing.holds = true;
    } else {
      standing.ahead = contenders[i - 1];
    }
    return standing;
  }
  standing.gone = true;
  return standing;
}

bool MutexContender::keep_alive() {
  const auto sent_at = SteadyClock::now();
  ++stats_.round_trips;
  const std::int64_t leases[] = {lease_};
  if (rpc_.keep_alive(leases, rpc_.command_deadline()).front() <= 0) return false;
  alive_since_ = sent_at;
  return true;
}

void MutexContender::leave() {
  if (lease_ != 0) rpc_.lease_revoke_unawaited(lease_);
  lease_ = 0;
  revision_ = 0;
  key_.clear();
}

SteadyClock::time_point MutexContender::keep_alive_due() const { return alive_since_ + ttl_ / 3; }

}  // namespace distlock::detail::etcd
