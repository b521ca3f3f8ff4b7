// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/queue_contender.h"

#include <utility>

namespace distlock::detail::etcd {

QueueContender::QueueContender(RpcClient& rpc, LeaseShelf& shelf, StatsCounters& stats,
                               std::string prefix, Recipe recipe, Millis ttl, std::string value,
                               SteadyClock::time_point caller_deadline)
    : Contender(rpc, shelf, stats, ttl, std::move(value), caller_deadline),
      prefix_(std::move(prefix)),
      recipe_(recipe) {}

etcdserverpb::RangeRequest QueueContender::children() const {
  etcdserverpb::RangeRequest request;
  request.set_key(prefix_ + '/');
  request.set_range_end(children_range_end(prefix_));
  request.set_keys_only(true);
  return request;
}

Standing QueueContender::put_and_look() {
  own_key_ = contender_key(prefix_, recipe_, lease());
  // As etcd's recipes: put the key unless it is there (a retry whose first reply was lost),
  // and list the contenders in the same revision.
  etcdserverpb::TxnRequest request;
  auto* absent = request.add_compare();
  absent->set_key(own_key_);
  absent->set_target(etcdserverpb::Compare::CREATE);
  absent->set_result(etcdserverpb::Compare::EQUAL);
  absent->set_create_revision(0);
  auto* put = request.add_success()->mutable_request_put();
  put->set_key(own_key_);
  put->set_value(value());
  put->set_lease(lease());
  *request.add_success()->mutable_request_range() = children();
  request.add_failure()->mutable_request_range()->set_key(own_key_);
  *request.add_failure()->mutable_request_range() = children();
  ++stats().round_trips;
  const auto reply = rpc().txn(request, step_until());
  if (reply.succeeded()) {
    own_revision_ = reply.header().revision();
  } else {
    const auto& own = reply.responses(0).response_range();
    own_revision_ = own.kvs_size() > 0 ? own.kvs(0).create_revision() : 0;
  }
  return standing_in(reply.responses(1).response_range());
}

Standing QueueContender::look() {
  ++stats().round_trips;
  return standing_in(rpc().range(children(), step_until()));
}

Standing QueueContender::standing_in(const etcdserverpb::RangeResponse& listing) {
  Standing standing;
  standing.listed_at = listing.header().revision();
  bool present = false;
  for (const auto& kv : listing.kvs())
    present = present || (kv.key() == own_key_ && kv.create_revision() == own_revision_);
  if (!present) {
    standing.gone = true;
    return standing;
  }
  // The youngest of the keys older than ours that hold it back.
  const ListedKey* ahead = nullptr;
  const auto blocking = blocking_keys(prefix_, recipe_, listing.kvs());
  for (const auto& key : blocking)
    if (key.create_revision < own_revision_) ahead = &key;
  if (ahead == nullptr) {
    standing.holds = true;
    holds_through(own_key_, own_revision_);
  } else {
    standing.wait_for = WatchTarget{ahead->key, {}};
  }
  return standing;
}

}  // namespace distlock::detail::etcd
