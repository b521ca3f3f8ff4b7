// SPDX-License-Identifier: Apache-2.0
// The Redis backend: one server over TCP or a unix socket, or the master Sentinel names.
// Locks are hashes and sorted sets changed only by Lua scripts (scripts/*.lua; which script
// and keys each kind of lock uses: kind_calls.h), waiters are woken by pub/sub, and renewals
// are pipelined.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <distlock/client.h>

#include "backends/backend.h"
#include "backends/redis/locks/release_courier.h"
#include "backends/redis/locks/release_listener.h"
#include "backends/redis/locks/script_runner.h"
#include "backends/redis/topology/outage.h"
#include "backends/redis/transport/connection_pool.h"
#include "backends/redis/transport/connection_settings.h"
#include "backends/redis/transport/master_locator.h"
#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/shared_connection.h"
#include "core/stats.h"
#include "core/step_deadline.h"
#include "util/url.h"

namespace distlock::detail::redis {

// One try at the lock: granted, or the holder's remaining PTTL.
struct Attempt {
  std::optional<Grant> grant;
  long long holder_pttl = 0;
  // When its request was sent, at the latest.
  SteadyClock::time_point sent_at;
};

// What one try came to, on the client's async executor: an Attempt, or the exception
// RedisBackend::try_acquire would throw.
using Tried = std::function<void(Attempt, std::exception_ptr)>;

// An attempt's token, which a fair lock's release that grants the lock to the waiter repeats
// ('<id> <fence> <token>'): its send time, unique per attempt of one waiter.
inline std::uint64_t attempt_token(SteadyClock::time_point sent_at) {
  return static_cast<std::uint64_t>(sent_at.time_since_epoch().count());
}

// Until when a waiter can sleep before the holder's lock runs out by itself, from the PTTL
// an attempt saw.
SteadyClock::time_point holder_gone(long long pttl, Millis ttl);

// Whether a command is sent after ASKING: to the master that imports a migrating slot, for
// keys it already has (a cluster node's ASK redirect).
enum class Asking { no, yes };

class AttemptPipeline;
struct AsyncWaitSteps;

class RedisBackend final : public Backend {
 public:
  // Connects, and checks and loads what the locks need, by `caller_deadline` when that comes
  // before connect_timeout and command_timeout (a Cluster's master met first by a wait).
  RedisBackend(ConnectionSettings settings, StatsCounters& stats,
               SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  // The locator outlives the release listener it tells of moves: it is told to stop first.
  ~RedisBackend() override;

  std::optional<Grant> acquire(const AcquireRequest& request) override;
  // Waits as acquire() does, each step on `executor` (async_waiter.h).
  std::shared_ptr<PendingAcquisition> acquire_async(const AcquireRequest& request,
                                                    AsyncExecutor& executor,
                                                    AcquireCompletion done) override {
    return acquire_async(request, executor, std::move(done), Asking::no);
  }
  // The same on a Cluster master: with Asking::yes, on one importing the lock's slot.
  std::shared_ptr<PendingAcquisition> acquire_async(const AcquireRequest& request,
                                                    AsyncExecutor& executor, AcquireCompletion done,
                                                    Asking asking);
  ReleaseOutcome release(const ReleaseRequest& request) override {
    return release(request, Asking::no);
  }
  // Rides through an outage as an acquisition does (outage.h): a release that does not get
  // through leaves its lock taken by nobody until its ttl.
  ReleaseOutcome release(const ReleaseRequest& request, Asking asking);
  // The release script is sent, and its reply read by the next user of the connection; the
  // courier sees it delivered (release_courier.h).
  void release_unawaited(const ReleaseRequest& request,
                         const ReleaseReportHandler& report) override;
  bool sends_releases_unawaited() const override { return true; }
  bool supports_keeping() const override { return true; }
  bool supports_read_write() const override { return true; }
  bool supports_permits() const override { return true; }
  bool supports_fair() const override { return true; }
  void renew(std::span<RenewItem> items, SteadyClock::time_point deadline) override;
  // The same on a Cluster's master: with Asking::yes, each renewal after ASKING (the master
  // imports the slot); `asked[i]` is set where items[i] was answered ASK (its slot migrates,
  // and its keys are on the master named).
  void renew(std::span<RenewItem> items, SteadyClock::time_point deadline, Asking asking,
             std::vector<std::optional<Redirect>>& asked);
  const std::string& server() const override { return settings_.server; }

  // One try, never waiting: granted, or the holder's remaining PTTL (for Redlock, which
  // asks each master once per round). A refusal throws Refused, other failures
  // BackendUnavailable. Its steps end by `caller_deadline` (core/step_deadline.h).
  Attempt try_acquire(const AcquireRequest& request, Asking asking = Asking::no,
                      SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  // Interest in the release notifications of one lock (release_listener.h).
  ReleaseListener::Ticket watch_releases(const HoldId& hold);
  // The same for a waiter without a thread, which `on_change` wakes.
  std::unique_ptr<ReleaseListener::AsyncTicket> watch_releases_async(
      const HoldId& hold, std::function<void()> on_change);
  // A waiter that stopped waiting, by its deadline or by an error, takes back its trace (a
  // writer's mark, which held new readers back; a fair waiter's place in the queue, or the lock a
  // release granted it meanwhile); a failure is logged and leaves it to expire with its ttl.
  // On the shared connection it waits by `caller_deadline` (step_deadline); unanswered, the
  // withdrawal still runs when the server answers. Never throws.
  void withdraw(const HoldId& hold,
                SteadyClock::time_point caller_deadline = kNoCallerDeadline) noexcept;

 private:
  enum class Retry {
    // Only when a reused connection broke without timing out: it had gone stale (a
    // server restart), and a fresh one will likely work; or when the master has moved (the
    // sentinels named another). A silent server is not asked twice.
    after_reset,
    // After any broken exchange: for release, whose hold would otherwise linger to its ttl.
    after_any_failure,
  };

  // Whether the lock commands (acquire, release, withdraw) share one connection rather than
  // borrow pooled ones: unless they wait for replicas (WAIT answers for the connection's own
  // writes), or max_connections leaves room for no more than one connection.
  bool shares_lock_connection() const {
    return settings_.min_replicas == 0 && settings_.max_connections >= 2;
  }
  // After `error` on `connection` (a Connection or the SharedConnection; `reused`: it served
  // earlier callers): whether `retry` calls for another try on a new connection. Asking the
  // sentinels whether the master moved ends by `caller_deadline` (MasterLocator::refresh).
  template <class Link>
  bool worth_another_try(Retry retry, const ServerError& error, const Link& connection, bool reused,
                         SteadyClock::time_point caller_deadline);
  bool worth_another_try(Retry retry, const ServerError& error, bool broken,
                         std::uint64_t generation, bool reused,
                         SteadyClock::time_point caller_deadline);
  // Runs `operation` on the shared connection, and once more on a new one if `retry` says so.
  // Connecting (or waiting for another caller's connecting) ends by `caller_deadline` when that
  // comes before connect_timeout.
  template <class Operation>
  auto with_lock_connection(Retry retry, Operation&& operation,
                            SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  // The shared connection, made anew when there is none, or it is `failed`, broken, or to a
  // master that has moved since; `made` says whether it was made for this call. One caller
  // makes it at a time, outside the mutex; the others wait for that one's outcome and share it,
  // its failure too, rather than each connecting in turn; each by its own deadline
  // (core/step_deadline.h).
  std::shared_ptr<SharedConnection> lock_connection(
      const SharedConnection* failed, bool& made,
      SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  // The shared connection if it is open and sound, else nullptr: never connects.
  std::shared_ptr<SharedConnection> live_lock_connection();
  // Whether there is a shared connection, unbroken, to the current master. Under
  // lock_connection_mutex_.
  bool lock_connection_sound() const;
  // Makes a connection to the current master, asking the sentinels again once if it fails.
  std::shared_ptr<SharedConnection> connect_to_master(std::uint64_t generation,
                                                      SteadyClock::time_point caller_deadline);
  // Runs `operation` on a pooled connection, and once more on a new one if `retry` says so.
  // With `lock`, the first connection is the one an unanswered release of the lock went out
  // on, if any (release_courier.h).
  // Borrowing and connecting end by `caller_deadline` when that comes first.
  template <class Operation>
  auto with_connection(Retry retry, Operation&& operation, std::string_view lock = {},
                       SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  ConnectionPool::Handle borrow_after_release_of(
      std::string_view lock, SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  // A pooled connection (`reuse`) or a new one to the master. A master that refuses the
  // connection may have failed over before the sentinels' +switch-master reached us: the
  // sentinels are asked, and a master they name instead is tried once.
  ConnectionPool::Handle borrow(bool reuse,
                                SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  // After a failover, once: warns if the new master may evict lock keys, as the first
  // master was checked (eviction_policy.h). A master not reachable yet is checked next time.
  void check_eviction_after_failover();
  std::string_view publish_command() const {
    return settings_.sharded_pubsub ? "SPUBLISH" : "PUBLISH";
  }
  // Each sends a release whose reply is read later, on the shared connection or on a pooled one
  // (which an acquisition of the same lock then waits for: release_courier.h); false when
  // the connection broke on the way out. Each throws ServerError when there is no connection.
  bool send_release_shared(const ScriptCall& call, const ReleaseRequest& request,
                           const ReleaseReportHandler& report);
  bool send_release_pooled(const ScriptCall& call, const ReleaseRequest& request,
                           const ReleaseReportHandler& report);
  // What the release script's reply says; a reply that never came goes to the courier.
  std::function<void(const redisReply*)> on_release_reply(const ReleaseRequest& request,
                                                          const ReleaseReportHandler& report);
  // For the courier: reads the replies owed on connections nobody uses (release_courier.h).
  void read_owed_replies();
  // ASKING: the next command may touch a slot this master is importing.
  void send_asking(Connection& connection) const;
  Attempt read_acquire_reply(const redisReply& reply, SteadyClock::time_point sent_at) const;
  // The release script's verdict; throws for a redirect, TRYAGAIN or an unexpected reply.
  ReleaseOutcome read_release_reply(const redisReply& reply) const;
  // The release made again through `outage` as long as it and `deadline` let; a failure told
  // of the lock.
  ReleaseOutcome release_through_outage(const ReleaseRequest& request, Asking asking,
                                        Outage& outage, SteadyClock::time_point deadline);
  // The attempts of one release so far: whether one went out, and whether the first went out
  // while the lease was still valid.
  struct ReleaseAttempts {
    bool sent = false;
    bool first_sent_while_valid = false;
  };
  // One release, retried once on a new connection; a failure is a ServerError. `attempts`: an
  // earlier attempt may have reached the server (updated as this one sends).
  ReleaseOutcome release_once(const ReleaseRequest& request, Asking asking,
                              ReleaseAttempts& attempts);
  // One try; a failure is a ServerError, not yet told of the lock. On the shared connection
  // its command is awaited by `caller_deadline` (step_deadline).
  Attempt attempt(const AcquireRequest& request, Asking asking,
                  SteadyClock::time_point caller_deadline);
  // An attempt whose reply its caller stopped awaiting (Unanswered) may yet be granted when the
  // server answers: a release sent after it on the same connection runs after it there, and
  // frees what it took. A release that cannot be sent is logged; the grant then expires with
  // its ttl.
  void release_if_granted_late(SharedConnection& connection, const HoldId& hold) noexcept;
  // The async waiters' steps, with attempts made after ASKING or not.
  std::unique_ptr<const AsyncWaitSteps> make_async_steps(Asking asking);
  // One try on the shared connection, its reply read by `pipeline`'s next read; `tried` hears
  // what it came to on the pipeline's executor, as try_acquire would return or throw it. After
  // a stale connection broke under it, it is made once more (`failed`: that connection).
  void send_attempt(const AcquireRequest& request, AttemptPipeline& pipeline, Tried tried,
                    const SharedConnection* failed = nullptr);
  // The hash's holder field for an acquisition sent now: '<host> <pid> <ms since the epoch>'.
  std::string holder_field() const;
  // One try that gets through, made again through `outage` as long as it lets; a failure told
  // of the lock (Refused for a refusal), as try_acquire's. `deadline`: the acquisition's, for
  // its steps; none (kNoCallerDeadline) for a try.
  Attempt attempt_through_outage(const AcquireRequest& request, Asking asking, Outage& outage,
                                 const std::optional<AcquisitionDeadline>& deadline);
  // A reply the script `script` should not have given: Redirected, TryAgain or ServerError.
  [[noreturn]] void throw_script_failure(std::string_view script, const redisReply& reply) const;
  // min_replicas: how many replicas acknowledged this connection's writes so far (WAIT),
  // waiting at most `timeout`.
  long long replicas_acknowledging(Connection& connection, Millis timeout) const;
  std::string too_few_replicas(long long acknowledged, Millis timeout) const;

  const ConnectionSettings settings_;
  StatsCounters& stats_;
  // '<host> <pid> ', the start of the lock hash's holder field (who holds it, for people).
  const std::string holder_;
  MasterLocator locator_;
  // Before the connections: they tell it of the releases they could not deliver as they close.
  ReleaseCourier courier_;
  // The courier's releases sent again ride one outage together: once it has outlasted the
  // limit, each release waiting behind is tried once, not for another whole limit.
  Outage courier_outage_;
  ConnectionPool pool_;
  const ScriptRunner scripts_;
  // The master moved (a failover) and its eviction policy is not checked yet.
  std::atomic<bool> eviction_unchecked_{false};
  // The shared connection and its reconnection, under lock_connection_mutex_.
  std::mutex lock_connection_mutex_;
  std::condition_variable lock_connection_made_;  // a reconnection ended
  std::shared_ptr<SharedConnection> lock_connection_;
  bool connecting_lock_connection_ = false;
  std::uint64_t lock_connection_attempts_ = 0;          // reconnections ended
  std::optional<ServerError> lock_connection_failure_;  // the last one's, if it failed
  // The asynchronous attempts' reads, made on the async executor's thread by the first of them.
  std::unique_ptr<AttemptPipeline> pipeline_;
  // What an asynchronous waiter does here (async_waiter.h): on the shared connection, and
  // after ASKING on a pooled one.
  const std::unique_ptr<const AsyncWaitSteps> async_steps_;
  const std::unique_ptr<const AsyncWaitSteps> async_steps_asking_;
  ReleaseListener listener_;
};

// Connects at once and loads the scripts. Reads the query key `db` for redis+unix://.
// Throws ConfigError for a URL it cannot use, BackendUnavailable when the server cannot be
// reached or refuses the credentials.
std::unique_ptr<Backend> make_backend(const Url& url, const Options& options, StatsCounters& stats);

}  // namespace distlock::detail::redis
