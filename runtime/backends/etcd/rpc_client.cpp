// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/rpc_client.h"

#include <chrono>
#include <unordered_map>
#include <utility>

#include "backends/etcd/channel_credentials.h"
#include "backends/etcd/connection_failure.h"

namespace distlock::detail::etcd {
namespace {

// What etcd answers for a token it has dropped (its simple tokens expire when idle).
constexpr std::string_view kInvalidToken = "invalid auth token";
constexpr std::string_view kAuthNotEnabled = "authentication is not enabled";

std::chrono::system_clock::time_point wall_clock(SteadyClock::time_point deadline) {
  const auto left = deadline - SteadyClock::now();
  return std::chrono::system_clock::now() +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(left);
}

void check(const grpc::Status& status, const EtcdSettings& settings) {
  if (!status.ok())
    throw RpcError(status.error_code(), connection_failure(settings, status.error_message()));
}

}  // namespace

RpcClient::RpcClient(const EtcdSettings& settings) : settings_(settings) {
  grpc::ChannelArguments arguments;
  // A member that went away is asked again soon after it is back, not after gRPC's
  // default backoff of up to two minutes.
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  // The watcher's stream stays open while idle: pings find a dead peer. No more often than
  // etcd allows (every 5 s, and only while a call is open): it answers more with a GOAWAY.
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  // sni=: the name sent in the handshake and looked for in the server's certificate.
  if (settings_.tls && settings_.tls->server_name)
    arguments.SetSslTargetNameOverride(*settings_.tls->server_name);
  const auto credentials = channel_credentials(settings_);
  for (const auto& target : settings_.targets) {
    Member member;
    member.channel = grpc::CreateCustomChannel(target, credentials, arguments);
    member.kv = etcdserverpb::KV::NewStub(member.channel);
    member.lease = etcdserverpb::Lease::NewStub(member.channel);
    member.watch = etcdserverpb::Watch::NewStub(member.channel);
    member.auth = etcdserverpb::Auth::NewStub(member.channel);
    member.maintenance = etcdserverpb::Maintenance::NewStub(member.channel);
    members_.push_back(std::move(member));
  }
}

RpcClient::~RpcClient() {
  std::unique_lock lock(unawaited_mutex_);
  unawaited_done_.wait(lock, [this] { return unawaited_ == 0; });
}

RpcClient::TimePoint RpcClient::command_deadline(TimePoint caller_deadline) const {
  return step_deadline(caller_deadline, settings_.command_timeout);
}

void RpcClient::prepare(grpc::ClientContext& context, TimePoint deadline) const {
  context.set_deadline(wall_clock(deadline));
  const std::lock_guard lock(token_mutex_);
  if (!token_.empty()) context.AddMetadata("token", token_);
}

template <class Call>
auto RpcClient::run(Call&& call, TimePoint deadline) {
  bool token_renewed = false;
  std::size_t tried = 0;
  for (;;) {
    const std::size_t index = current_.load();
    grpc::ClientContext context;
    prepare(context, deadline);
    auto [status, response] = call(members_[index], context);
    if (status.ok()) return response;
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE)
      reconnecting_.watch(members_[index].channel);
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE && ++tried < members_.size()) {
      std::size_t expected = index;
      current_.compare_exchange_strong(expected, (index + 1) % members_.size());
      continue;
    }
    if (!token_renewed && settings_.user &&
        status.error_message().find(kInvalidToken) != std::string::npos) {
      token_renewed = true;
      authenticate(deadline);
      continue;
    }
    check(status, settings_);
  }
}

void RpcClient::authenticate(TimePoint deadline) {
  etcdserverpb::AuthenticateRequest request;
  request.set_name(*settings_.user);
  request.set_password(*settings_.password);
  etcdserverpb::AuthenticateResponse response;
  grpc::ClientContext context;
  // Without the token it replaces, which the server may no longer take; that one stays until
  // the new one comes, so that a failure here leaves no call without a token.
  context.set_deadline(wall_clock(deadline));
  const grpc::Status status =
      members_[current_.load()].auth->Authenticate(&context, request, &response);
  // Credentials given to a cluster without authentication are not needed.
  if (!status.ok() && status.error_message().find(kAuthNotEnabled) != std::string::npos) {
    const std::lock_guard lock(token_mutex_);
    token_.clear();
    return;
  }
  check(status, settings_);
  const std::lock_guard lock(token_mutex_);
  token_ = response.token();
}

void RpcClient::check_reachable() {
  const auto deadline = SteadyClock::now() + settings_.connect_timeout;
  if (settings_.user) {
    std::size_t tried = 0;
    for (;;) {
      try {
        authenticate(deadline);
        break;
      } catch (const RpcError& error) {
        if (error.code() != grpc::StatusCode::UNAVAILABLE || ++tried >= members_.size()) throw;
        current_.store((current_.load() + 1) % members_.size());
      }
    }
  }
  etcdserverpb::RangeRequest request;
  request.set_key("/distlock");
  request.set_count_only(true);
  range(request, deadline);
}

etcdserverpb::RangeResponse RpcClient::range(const etcdserverpb::RangeRequest& request,
                                             TimePoint deadline) {
  return run(
      [&](Member& member, grpc::ClientContext& context) {
        etcdserverpb::RangeResponse response;
        const grpc::Status status = member.kv->Range(&context, request, &response);
        return std::pair{status, std::move(response)};
      },
      deadline);
}

etcdserverpb::TxnResponse RpcClient::txn(const etcdserverpb::TxnRequest& request,
                                         TimePoint deadline) {
  return run(
      [&](Member& member, grpc::ClientContext& context) {
        etcdserverpb::TxnResponse response;
        const grpc::Status status = member.kv->Txn(&context, request, &response);
        return std::pair{status, std::move(response)};
      },
      deadline);
}

etcdserverpb::LeaseGrantResponse RpcClient::lease_grant(std::int64_t ttl_seconds,
                                                        TimePoint deadline) {
  etcdserverpb::LeaseGrantRequest request;
  request.set_ttl(ttl_seconds);
  auto granted = run(
      [&](Member& member, grpc::ClientContext& context) {
        etcdserverpb::LeaseGrantResponse response;
        const grpc::Status status = member.lease->LeaseGrant(&context, request, &response);
        return std::pair{status, std::move(response)};
      },
      deadline);
  if (!granted.error().empty()) throw RpcError(grpc::StatusCode::UNKNOWN, granted.error());
  return granted;
}

std::optional<std::int64_t> RpcClient::lease_time_to_live(std::int64_t lease, TimePoint deadline) {
  etcdserverpb::LeaseTimeToLiveRequest request;
  request.set_id(lease);
  etcdserverpb::LeaseTimeToLiveResponse reply;
  try {
    reply = run(
        [&](Member& member, grpc::ClientContext& context) {
          etcdserverpb::LeaseTimeToLiveResponse response;
          const grpc::Status status = member.lease->LeaseTimeToLive(&context, request, &response);
          return std::pair{status, std::move(response)};
        },
        deadline);
  } catch (const RpcError& error) {
    // etcd 3.4 answers a TTL of -1 for a lease it does not have; later ones, NOT_FOUND.
    if (error.code() == grpc::StatusCode::NOT_FOUND) return std::nullopt;
    throw;
  }
  if (reply.ttl() < 0) return std::nullopt;
  return reply.ttl();
}

std::string RpcClient::server_version(TimePoint deadline) {
  const etcdserverpb::StatusRequest request;
  return run(
             [&](Member& member, grpc::ClientContext& context) {
               etcdserverpb::StatusResponse response;
               const grpc::Status status = member.maintenance->Status(&context, request, &response);
               return std::pair{status, std::move(response)};
             },
             deadline)
      .version();
}

bool RpcClient::lease_revoke(std::int64_t lease, TimePoint deadline) {
  etcdserverpb::LeaseRevokeRequest request;
  request.set_id(lease);
  try {
    run(
        [&](Member& member, grpc::ClientContext& context) {
          etcdserverpb::LeaseRevokeResponse response;
          const grpc::Status status = member.lease->LeaseRevoke(&context, request, &response);
          return std::pair{status, std::move(response)};
        },
        deadline);
    return true;
  } catch (const RpcError& error) {
    if (error.code() == grpc::StatusCode::NOT_FOUND) return false;
    throw;
  }
}

void RpcClient::lease_revoke_unawaited(std::int64_t lease) {
  struct Call {
    grpc::ClientContext context;
    etcdserverpb::LeaseRevokeRequest request;
    etcdserverpb::LeaseRevokeResponse response;
  };
  auto* call = new Call;  // freed by its completion, which gRPC always calls
  prepare(call->context, command_deadline());
  call->request.set_id(lease);
  {
    const std::lock_guard lock(unawaited_mutex_);
    ++unawaited_;
  }
  members_[current_.load()].lease->async()->LeaseRevoke(
      &call->context, &call->request, &call->response, [this, call](const grpc::Status&) {
        delete call;
        const std::lock_guard lock(unawaited_mutex_);
        if (--unawaited_ == 0) unawaited_done_.notify_all();
      });
}

std::vector<std::int64_t> RpcClient::keep_alive(std::span<const std::int64_t> leases,
                                                TimePoint deadline) {
  return run(
      [&](Member& member, grpc::ClientContext& context) {
        std::vector<std::int64_t> left(leases.size(), 0);
        auto stream = member.lease->LeaseKeepAlive(&context);
        // The server answers each request in turn, on the same stream.
        for (const auto lease : leases) {
          etcdserverpb::LeaseKeepAliveRequest request;
          request.set_id(lease);
          if (!stream->Write(request)) break;
        }
        stream->WritesDone();
        // Each request is answered in turn; matched by id all the same.
        std::unordered_map<std::int64_t, std::int64_t> answered;
        etcdserverpb::LeaseKeepAliveResponse response;
        for (std::size_t answers = 0; answers < leases.size() && stream->Read(&response); ++answers)
          answered[response.id()] = response.ttl();
        for (std::size_t i = 0; i < leases.size(); ++i)
          if (const auto it = answered.find(leases[i]); it != answered.end()) left[i] = it->second;
        const grpc::Status status = stream->Finish();
        return std::pair{status, std::move(left)};
      },
      deadline);
}

void RpcClient::renew_token() {
  if (settings_.user) authenticate(command_deadline());
}

etcdserverpb::Watch::Stub& RpcClient::watch_stub() { return *members_[current_.load()].watch; }

std::unique_ptr<grpc::ClientContext> RpcClient::stream_context() {
  auto context = std::make_unique<grpc::ClientContext>();
  const std::lock_guard lock(token_mutex_);
  if (!token_.empty()) context->AddMetadata("token", token_);
  return context;
}

}  // namespace distlock::detail::etcd
