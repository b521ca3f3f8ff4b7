// SPDX-License-Identifier: Apache-2.0
// etcd's gRPC API as the backend calls it: one channel per member, calls that fail over to
// the next member when one is unavailable, each call bounded by a deadline, and etcd's
// authentication token attached to every call (fetched again when the server has dropped it).
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/etcd/reconnect_watch.h"
#include "backends/etcd/settings.h"
#include "core/step_deadline.h"
#include "etcd_rpc.grpc.pb.h"
#include "util/steady_clock.h"

namespace distlock::detail::etcd {

// A call that failed: gRPC's status code and etcd's (or gRPC's) reason.
class RpcError : public std::runtime_error {
 public:
  RpcError(grpc::StatusCode code, const std::string& reason)
      : std::runtime_error(reason), code_(code) {}
  grpc::StatusCode code() const { return code_; }
  std::string reason() const { return what(); }
  bool timed_out() const { return code_ == grpc::StatusCode::DEADLINE_EXCEEDED; }
  // No member could be reached, the one reached has no leader (an election), or none answered
  // in time (a blackhole, a frozen member): asking again later may get through, so an
  // acquisition rides it through while its wait has time left (core/ride_through.h).
  bool transient() const {
    return code_ == grpc::StatusCode::UNAVAILABLE || code_ == grpc::StatusCode::DEADLINE_EXCEEDED;
  }

 private:
  grpc::StatusCode code_;
};

class RpcClient {
 public:
  using TimePoint = SteadyClock::time_point;

  explicit RpcClient(const EtcdSettings& settings);
  // Waits for the calls that were not awaited (each has its command deadline): gRPC must not
  // complete a call of a client that is gone.
  ~RpcClient();
  RpcClient(const RpcClient&) = delete;
  RpcClient& operator=(const RpcClient&) = delete;

  // Asks the cluster once (and authenticates), by the connect timeout. Throws RpcError.
  void check_reachable();

  etcdserverpb::RangeResponse range(const etcdserverpb::RangeRequest& request, TimePoint deadline);
  etcdserverpb::TxnResponse txn(const etcdserverpb::TxnRequest& request, TimePoint deadline);
  // A lease of `ttl_seconds` (etcd raises it to its minimum, about 2 s, when shorter).
  etcdserverpb::LeaseGrantResponse lease_grant(std::int64_t ttl_seconds, TimePoint deadline);
  // Revokes a lease, deleting its keys; false when the server did not know it.
  bool lease_revoke(std::int64_t lease, TimePoint deadline);
  // The same, without waiting: the reply is dropped (a lease not revoked expires by itself).
  void lease_revoke_unawaited(std::int64_t lease);
  // Keeps each lease alive, over one stream: the TTL each has left in seconds, in order;
  // 0 or less for a lease the server no longer has.
  std::vector<std::int64_t> keep_alive(std::span<const std::int64_t> leases, TimePoint deadline);

  // The seconds a lease has left; none when the server no longer has it.
  std::optional<std::int64_t> lease_time_to_live(std::int64_t lease, TimePoint deadline);
  // The etcd version of the member that answers.
  std::string server_version(TimePoint deadline);

  // Fetches a new authentication token with the URL's credentials (nothing without them): for a
  // stream whose token the server stopped taking. Throws as a call does when it cannot.
  void renew_token();

  // For the watcher's stream: the member to use, and a context with the token attached.
  etcdserverpb::Watch::Stub& watch_stub();
  std::unique_ptr<grpc::ClientContext> stream_context();

  // now + the command timeout, or `caller_deadline` when that comes first
  // (core/step_deadline.h).
  TimePoint command_deadline(TimePoint caller_deadline = kNoCallerDeadline) const;

 private:
  struct Member {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<etcdserverpb::KV::Stub> kv;
    std::unique_ptr<etcdserverpb::Lease::Stub> lease;
    std::unique_ptr<etcdserverpb::Watch::Stub> watch;
    std::unique_ptr<etcdserverpb::Auth::Stub> auth;
    std::unique_ptr<etcdserverpb::Maintenance::Stub> maintenance;
  };

  // Runs `call(member, context)` on the current member, then on the others while a member is
  // unavailable, and once more after fetching a new token when the server dropped ours.
  template <class Call>
  auto run(Call&& call, TimePoint deadline);
  void prepare(grpc::ClientContext& context, TimePoint deadline) const;
  void authenticate(TimePoint deadline);

  const EtcdSettings& settings_;
  std::vector<Member> members_;
  std::atomic<std::size_t> current_{0};
  mutable std::mutex token_mutex_;
  std::string token_;  // under token_mutex_; empty: none
  std::mutex unawaited_mutex_;
  std::condition_variable unawaited_done_;
  int unawaited_ = 0;  // under unawaited_mutex_: calls sent and not yet completed
  // Last, so that it stops polling the channels first.
  ReconnectWatch reconnecting_;
};

}  // namespace distlock::detail::etcd
