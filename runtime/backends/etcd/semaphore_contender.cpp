// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/semaphore_contender.h"

#include <utility>

#include "backends/etcd/key_layout.h"

namespace distlock::detail::etcd {
namespace {

etcdserverpb::RangeRequest range_below(const std::string& prefix) {
  etcdserverpb::RangeRequest request;
  request.set_key(prefix + '/');
  request.set_range_end(children_range_end(prefix));
  request.set_keys_only(true);
  return request;
}

void add_put(etcdserverpb::RequestOp* op, const std::string& key, const std::string& value,
             std::int64_t lease) {
  auto* put = op->mutable_request_put();
  put->set_key(key);
  put->set_value(value);
  put->set_lease(lease);
}

std::int64_t revision_of(const std::string& key,
                         const google::protobuf::RepeatedPtrField<mvccpb::KeyValue>& kvs) {
  for (const auto& kv : kvs)
    if (kv.key() == key) return kv.create_revision();
  return 0;
}

}  // namespace

SemaphoreContender::SemaphoreContender(RpcClient& rpc, LeaseShelf& shelf, StatsCounters& stats,
                                       const std::string& prefix, std::uint32_t permits, Millis ttl,
                                       std::string value, SteadyClock::time_point caller_deadline)
    : Contender(rpc, shelf, stats, ttl, std::move(value), caller_deadline),
      entry_prefix_(semaphore_entry(prefix)),
      permit_prefix_(semaphore_permits(prefix)),
      permits_(permits) {}

etcdserverpb::RangeRequest SemaphoreContender::entries() const {
  return range_below(entry_prefix_);
}

etcdserverpb::RangeRequest SemaphoreContender::permit_keys() const {
  return range_below(permit_prefix_);
}

Standing SemaphoreContender::put_and_look() {
  entry_key_ = contender_key(entry_prefix_, Recipe::mutex, lease());
  permit_key_ = contender_key(permit_prefix_, Recipe::mutex, lease());
  entry_revision_ = 0;
  admitted_ = false;
  // Nobody queues: put the permit key and count, in one transaction. Otherwise queue.
  etcdserverpb::TxnRequest request;
  auto* nobody_queues = request.add_compare();
  nobody_queues->set_key(entry_prefix_ + '/');
  nobody_queues->set_range_end(children_range_end(entry_prefix_));
  nobody_queues->set_target(etcdserverpb::Compare::CREATE);
  nobody_queues->set_result(etcdserverpb::Compare::EQUAL);
  nobody_queues->set_create_revision(0);
  add_put(request.add_success(), permit_key_, value(), lease());
  *request.add_success()->mutable_request_range() = permit_keys();
  add_put(request.add_failure(), entry_key_, value(), lease());
  *request.add_failure()->mutable_request_range() = entries();
  ++stats().round_trips;
  auto reply = rpc().txn(request, step_until());
  if (!reply.succeeded()) {
    entry_revision_ = reply.header().revision();
    return queued(reply.responses(1).response_range());
  }
  const auto& permits = reply.responses(1).response_range();
  if (contenders_of(permit_prefix_, permits.kvs()).size() <= permits_) {
    holds_through(permit_key_, reply.header().revision());
    Standing standing;
    standing.holds = true;
    return standing;
  }
  // None free: the permit key would be counted by the contender the Mutex admits, which could
  // then wait for ours. It goes, and this contender queues.
  etcdserverpb::TxnRequest queue;
  queue.add_success()->mutable_request_delete_range()->set_key(permit_key_);
  add_put(queue.add_success(), entry_key_, value(), lease());
  *queue.add_success()->mutable_request_range() = entries();
  ++stats().round_trips;
  reply = rpc().txn(queue, step_until());
  entry_revision_ = reply.header().revision();
  return queued(reply.responses(2).response_range());
}

Standing SemaphoreContender::look() {
  ++stats().round_trips;
  if (admitted_) return counted(rpc().range(permit_keys(), step_until()));
  return queued(rpc().range(entries(), step_until()));
}

Standing SemaphoreContender::queued(const etcdserverpb::RangeResponse& entries) {
  Standing standing;
  standing.listed_at = entries.header().revision();
  if (revision_of(entry_key_, entries.kvs()) != entry_revision_) {
    standing.gone = true;
    return standing;
  }
  const ListedKey* ahead = nullptr;
  const auto queue = contenders_of(entry_prefix_, entries.kvs());
  for (const auto& entry : queue)
    if (entry.create_revision < entry_revision_) ahead = &entry;
  if (ahead != nullptr) {
    standing.wait_for = WatchTarget{ahead->key, {}};
    return standing;
  }
  return count_permits();
}

Standing SemaphoreContender::count_permits() {
  admitted_ = true;
  etcdserverpb::TxnRequest request;
  add_put(request.add_success(), permit_key_, value(), lease());
  *request.add_success()->mutable_request_range() = permit_keys();
  ++stats().round_trips;
  try {
    return counted(rpc().txn(request, step_until()).responses(1).response_range());
  } catch (const RpcError& error) {
    // The lease expired while it queued: the contender enters again.
    if (error.code() != grpc::StatusCode::NOT_FOUND) throw;
    Standing standing;
    standing.gone = true;
    return standing;
  }
}

Standing SemaphoreContender::counted(const etcdserverpb::RangeResponse& permits) {
  Standing standing;
  standing.listed_at = permits.header().revision();
  const std::int64_t permit_revision = revision_of(permit_key_, permits.kvs());
  if (permit_revision == 0) {
    standing.gone = true;
    return standing;
  }
  if (contenders_of(permit_prefix_, permits.kvs()).size() > permits_) {
    standing.wait_for = WatchTarget{permit_prefix_ + '/', children_range_end(permit_prefix_)};
    return standing;
  }
  // The next contender in the Mutex may count now.
  etcdserverpb::TxnRequest leave_queue;
  leave_queue.add_success()->mutable_request_delete_range()->set_key(entry_key_);
  ++stats().round_trips;
  rpc().txn(leave_queue, step_until());
  holds_through(permit_key_, permit_revision);
  standing.holds = true;
  return standing;
}

}  // namespace distlock::detail::etcd
