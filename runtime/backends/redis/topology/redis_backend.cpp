// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/topology/redis_backend.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <utility>

#include <distlock/log.h>

#include "backends/redis/locks/attempt_pipeline.h"
#include "backends/redis/locks/kind_calls.h"
#include "backends/redis/locks/release_listener.h"
#include "backends/redis/locks/script_runner.h"
#include "backends/redis/topology/async_waiter.h"
#include "backends/redis/topology/waiting.h"
#include "backends/redis/transport/connection_pool.h"
#include "backends/redis/transport/connection_settings.h"
#include "backends/redis/transport/eviction_policy.h"
#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/server_version.h"
#include "util/decimal.h"
#include "util/process_label.h"

namespace distlock::detail::redis {
namespace {

// A renewal sent when a lease is about to end still gets this long for its reply.
constexpr Millis kShortestRenewalWait{10};

std::optional<std::uint64_t> parse_fence(const redisReply& reply) {
  if (reply.type == REDIS_REPLY_INTEGER && reply.integer >= 0)
    return static_cast<std::uint64_t>(reply.integer);
  if (reply.type != REDIS_REPLY_STRING) return std::nullopt;
  return parse_decimal<std::uint64_t>(reply_text(reply));
}

std::string script_failure(std::string_view script, const redisReply& reply) {
  return (is_error(reply) ? "the " + std::string(script) + " script failed: "
                          : "unexpected reply to the " + std::string(script) + " script: ") +
         describe_reply(reply);
}

void log_withdrawal_failure(const std::string& failure) {
  log(LogLevel::warning, failure +
                             " (a waiter that stopped waiting; what it left behind holds "
                             "others back until it expires)");
}

// The server is checked once per backend, on its first connection: its version, then whether it
// may evict lock keys.
ScriptRunner load_scripts(ConnectionPool& pool, const ConnectionSettings& settings,
                          SteadyClock::time_point caller_deadline) {
  const auto connection = pool.borrow(caller_deadline);
  const auto limit = connection->limit_to_caller(caller_deadline);
  require_supported_version(*connection);
  warn_if_locks_may_be_evicted(*connection, settings.sentinel());
  return ScriptRunner(*connection);
}

}  // namespace

// Until when a waiter can sleep before the holder's lock runs out by itself. PTTL -2: the
// lock vanished just now, retry at once. -1: someone removed its expiry by hand, so wait
// one ttl and look again. The extra millisecond keeps the retry from landing just before
// the server expires the key.
SteadyClock::time_point holder_gone(long long pttl, Millis ttl) {
  const auto now = SteadyClock::now();
  if (pttl == -2) return now;
  if (pttl < 0) return now + ttl;
  return now + Millis(pttl + 1);
}

RedisBackend::RedisBackend(ConnectionSettings settings, StatsCounters& stats,
                           SteadyClock::time_point caller_deadline)
    : settings_(std::move(settings)),
      stats_(stats),
      holder_(process_label() + ' '),
      locator_(settings_),
      courier_(
          settings_.server, [this] { read_owed_replies(); },
          [this](const ReleaseRequest& request, SteadyClock::time_point deadline) {
            return release_through_outage(request, Asking::no, courier_outage_, deadline);
          }),
      courier_outage_(settings_.outage_limit),
      pool_(settings_, locator_,
            shares_lock_connection() ? settings_.max_connections - 1 : settings_.max_connections),
      scripts_(load_scripts(pool_, settings_, caller_deadline)),
      async_steps_(make_async_steps(Asking::no)),
      async_steps_asking_(make_async_steps(Asking::yes)),
      listener_(settings_, locator_, stats_) {
  locator_.set_on_moved([this] {
    listener_.master_moved();
    eviction_unchecked_ = true;
  });
}

RedisBackend::~RedisBackend() {
  // While the connections are open: what they owe is read, and what broke is sent again.
  courier_.stop(SteadyClock::now() + settings_.command_timeout);
  locator_.set_on_moved({});
}

void RedisBackend::check_eviction_after_failover() {
  if (!eviction_unchecked_.exchange(false)) return;
  try {
    const auto connection = pool_.borrow();
    warn_if_locks_may_be_evicted(*connection, settings_.sentinel());
  } catch (const ServerError&) {
    eviction_unchecked_ = true;
  }
}

ConnectionPool::Handle RedisBackend::borrow(bool reuse, SteadyClock::time_point caller_deadline) {
  check_eviction_after_failover();
  const std::uint64_t generation = locator_.generation();
  try {
    return reuse ? pool_.borrow(caller_deadline) : pool_.borrow_new(caller_deadline);
  } catch (const ServerError&) {
    if (!locator_.refresh(generation, caller_deadline)) throw;
  }
  return pool_.borrow_new(caller_deadline);
}

ConnectionPool::Handle RedisBackend::borrow_after_release_of(
    std::string_view lock, SteadyClock::time_point caller_deadline) {
  const Connection* released_on = courier_.connection_of(lock);
  if (released_on != nullptr) {
    auto connection =
        pool_.borrow_this(released_on, [&] { return !courier_.owes(lock, released_on); });
    if (connection) return std::move(*connection);
  }
  return borrow(true, caller_deadline);
}

template <class Link>
bool RedisBackend::worth_another_try(Retry retry, const ServerError& error, const Link& connection,
                                     bool reused, SteadyClock::time_point caller_deadline) {
  return worth_another_try(retry, error, connection.broken(), connection.generation(), reused,
                           caller_deadline);
}

bool RedisBackend::worth_another_try(Retry retry, const ServerError& error, bool broken,
                                     std::uint64_t generation, bool reused,
                                     SteadyClock::time_point caller_deadline) {
  // An error reply leaves the connection sound, and asking again would repeat it.
  return broken && (retry == Retry::after_any_failure || (reused && !error.timed_out()) ||
                    locator_.refresh(generation, caller_deadline));
}

std::shared_ptr<SharedConnection> RedisBackend::lock_connection(
    const SharedConnection* failed, bool& made, SteadyClock::time_point caller_deadline) {
  made = false;
  std::unique_lock lock(lock_connection_mutex_);
  while (true) {
    if (lock_connection_sound() && lock_connection_.get() != failed) return lock_connection_;
    if (!connecting_lock_connection_) break;
    const auto attempt = lock_connection_attempts_;
    const auto until = step_deadline(caller_deadline, settings_.connect_timeout);
    if (!lock_connection_made_.wait_until(lock, until,
                                          [&] { return lock_connection_attempts_ != attempt; }))
      throw connecting_timed_out(settings_, "another caller's connecting did not end", until,
                                 caller_deadline);
    // Another caller's reconnection failed: so does this caller's, at once, rather than try
    // again in turn (twenty scope exits would take twenty connect timeouts).
    if (lock_connection_failure_) throw *lock_connection_failure_;
  }
  connecting_lock_connection_ = true;
  // Closed outside the mutex: closing tells the handlers of the replies it still owes, which
  // reach the courier and the user's log and event hook.
  const std::shared_ptr<SharedConnection> replaced = std::move(lock_connection_);
  const std::uint64_t generation = locator_.generation();
  lock.unlock();
  std::shared_ptr<SharedConnection> connection;
  std::optional<ServerError> failure;
  try {
    check_eviction_after_failover();
    connection = connect_to_master(generation, caller_deadline);
  } catch (const ServerError& error) {
    failure = error;
  }
  lock.lock();
  connecting_lock_connection_ = false;
  ++lock_connection_attempts_;
  lock_connection_ = connection;
  lock_connection_failure_ = failure;
  lock.unlock();
  lock_connection_made_.notify_all();
  if (failure) throw *failure;
  made = true;
  return connection;
}

std::shared_ptr<SharedConnection> RedisBackend::connect_to_master(
    std::uint64_t generation, SteadyClock::time_point caller_deadline) {
  const auto connect = [&] {
    const MasterLocator::Master master = locator_.current();
    return std::make_shared<SharedConnection>(settings_, master.address, master.generation,
                                              caller_deadline);
  };
  try {
    return connect();
  } catch (const ServerError&) {
    // As borrow(): the master may have failed over before the sentinels' word reached us.
    if (!locator_.refresh(generation, caller_deadline)) throw;
    return connect();
  }
}

std::shared_ptr<SharedConnection> RedisBackend::live_lock_connection() {
  const std::lock_guard guard(lock_connection_mutex_);
  return lock_connection_sound() ? lock_connection_ : nullptr;
}

bool RedisBackend::lock_connection_sound() const {
  return lock_connection_ && !lock_connection_->broken() &&
         lock_connection_->generation() == locator_.generation();
}

template <class Operation>
auto RedisBackend::with_lock_connection(Retry retry, Operation&& operation,
                                        SteadyClock::time_point caller_deadline) {
  bool made = false;
  std::shared_ptr<SharedConnection> connection = lock_connection(nullptr, made, caller_deadline);
  try {
    ++stats_.round_trips;
    return operation(*connection);
  } catch (const ServerError& error) {
    if (!worth_another_try(retry, error, *connection, !made, caller_deadline)) throw;
  }
  connection = lock_connection(connection.get(), made, caller_deadline);
  ++stats_.round_trips;
  return operation(*connection);
}

template <class Operation>
auto RedisBackend::with_connection(Retry retry, Operation&& operation, std::string_view lock,
                                   SteadyClock::time_point caller_deadline) {
  {
    const auto connection = lock.empty() ? borrow(true, caller_deadline)
                                         : borrow_after_release_of(lock, caller_deadline);
    try {
      ++stats_.round_trips;
      return operation(*connection);
    } catch (const ServerError& error) {
      if (!worth_another_try(retry, error, *connection, connection.reused(), caller_deadline))
        throw;
    }
  }
  const auto connection = borrow(false, caller_deadline);
  ++stats_.round_trips;
  return operation(*connection);
}

std::optional<Grant> RedisBackend::acquire(const AcquireRequest& request) {
  const bool leaves_trace = leaves_trace_when_waiting(request.hold.kind);
  std::optional<Grant> grant;
  Outage outage(settings_.outage_limit);
  const std::optional<AcquisitionDeadline> deadline(std::in_place, request.deadline);
  const auto try_once = [&] {
    return attempt_through_outage(request, Asking::no, outage, deadline);
  };
  try {
    const Attempt attempt = try_once();
    grant = attempt.grant;
    if (!grant && SteadyClock::now() < request.deadline)
      grant = wait_for_grant(
          request, stats_, attempt, Unheard::wait,
          settings_.min_replicas == 0 ? GrantMessage::taken : GrantMessage::asked_for,
          [&] { return watch_releases(request.hold); }, try_once);
  } catch (const Redirected&) {
    // A Cluster goes on with this acquisition on the master named, where its trace moved too.
    throw;
  } catch (const TryAgain&) {
    throw;
  } catch (...) {
    // Whatever ended the wait, the place it kept (or a grant a release made to it meanwhile)
    // would otherwise hold the others back for its ttl.
    if (leaves_trace) withdraw(request.hold, deadline->for_steps());
    throw;
  }
  if (!grant && leaves_trace) withdraw(request.hold, deadline->for_steps());
  return grant;
}

Attempt RedisBackend::try_acquire(const AcquireRequest& request, Asking asking,
                                  SteadyClock::time_point caller_deadline) {
  Outage none(Millis::zero());
  return none.ride_through(request.hold.name, request.deadline,
                           [&] { return attempt(request, asking, caller_deadline); });
}

Attempt RedisBackend::attempt_through_outage(const AcquireRequest& request, Asking asking,
                                             Outage& outage,
                                             const std::optional<AcquisitionDeadline>& deadline) {
  return outage.ride_through(request.hold.name, request.deadline, [&] {
    return attempt(request, asking, deadline ? deadline->for_steps() : kNoCallerDeadline);
  });
}

std::string RedisBackend::holder_field() const {
  return holder_ + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
}

Attempt RedisBackend::attempt(const AcquireRequest& request, Asking asking,
                              SteadyClock::time_point caller_deadline) {
  const std::string holder = holder_field();
  // The lease's validity counts from the send time of the request that won: from before its
  // first sending, which a fair lock's grant names.
  const auto sent_at = SteadyClock::now();
  const std::string attempt = std::to_string(attempt_token(sent_at));
  KindCall texts;
  const ScriptCall call = texts.acquire(request, holder, attempt, listener_.watched(request.hold));
  if (asking == Asking::no && shares_lock_connection())
    return with_lock_connection(
        Retry::after_reset,
        [&](SharedConnection& connection) {
          try {
            return read_acquire_reply(*scripts_.run(connection, call, caller_deadline), sent_at);
          } catch (const Unanswered&) {
            release_if_granted_late(connection, request.hold);
            throw;
          }
        },
        caller_deadline);
  return with_connection(
      Retry::after_reset,
      [&](Connection& connection) {
        // A pooled connection's replies, as the shared connection's, are awaited no longer than
        // the caller waits (core/step_deadline.h). A grant made after that holds until its ttl,
        // or until the owner's next grant takes it over.
        const auto limit = connection.limit_to_caller(caller_deadline);
        if (asking == Asking::yes) send_asking(connection);
        const Reply reply = scripts_.run(connection, call);
        Attempt attempt = read_acquire_reply(*reply, sent_at);
        if (!attempt.grant || settings_.min_replicas == 0) return attempt;
        const auto acknowledged = replicas_acknowledging(connection, settings_.replica_timeout());
        if (acknowledged >= settings_.min_replicas) return attempt;
        // A failover now could promote a replica without this grant and give the lock to
        // another client: the grant is withdrawn.
        KindCall withdraw_texts;
        const Reply withdrawn = scripts_.run(
            connection, withdraw_texts.release(request.hold, Millis::zero(), publish_command()));
        const std::string too_few = too_few_replicas(acknowledged, settings_.replica_timeout());
        // A withdrawal that failed leaves the hold to expire with its ttl: say so.
        if (withdrawn->type != REDIS_REPLY_INTEGER)
          throw ServerError(settings_.server,
                            too_few + "; withdrawing the grant failed, it expires with its ttl (" +
                                script_failure("release", *withdrawn) + ")");
        throw ServerError(settings_.server, too_few + "; the grant was withdrawn");
      },
      request.hold.name, caller_deadline);
}

Attempt RedisBackend::read_acquire_reply(const redisReply& reply,
                                         SteadyClock::time_point sent_at) const {
  if (reply.type == REDIS_REPLY_ARRAY && reply.elements == 2 &&
      reply.element[0]->type == REDIS_REPLY_INTEGER) {
    const redisReply& value = *reply.element[1];
    if (reply.element[0]->integer == 0 && value.type == REDIS_REPLY_INTEGER)
      return Attempt{std::nullopt, value.integer, sent_at};
    if (reply.element[0]->integer == 1)
      if (const auto fence = parse_fence(value)) return Attempt{Grant{*fence, sent_at}, 0, sent_at};
  }
  throw_script_failure("acquire", reply);
}

void RedisBackend::throw_script_failure(std::string_view script, const redisReply& reply) const {
  if (auto redirect = redirect_of(reply)) throw Redirected(settings_.server, std::move(*redirect));
  if (is_error(reply) && reply_text(reply).starts_with("TRYAGAIN"))
    throw TryAgain(settings_.server, script_failure(script, reply));
  throw ServerError::of_reply(settings_.server, script_failure(script, reply), reply);
}

ReleaseOutcome RedisBackend::read_release_reply(const redisReply& reply) const {
  if (reply.type == REDIS_REPLY_INTEGER && (reply.integer == 0 || reply.integer == 1))
    return reply.integer == 1 ? ReleaseOutcome::released : ReleaseOutcome::not_held;
  throw_script_failure("release", reply);
}

long long RedisBackend::replicas_acknowledging(Connection& connection, Millis timeout) const {
  const std::string replicas = std::to_string(settings_.min_replicas);
  const std::string wait_ms = std::to_string(std::max<Millis::rep>(timeout.count(), 1));
  const std::string_view wait[] = {"WAIT", replicas, wait_ms};
  const Reply reply = connection.command(wait);
  if (reply->type != REDIS_REPLY_INTEGER)
    throw ServerError::of_reply(settings_.server,
                                "unexpected reply to WAIT: " + describe_reply(*reply), *reply);
  return reply->integer;
}

std::string RedisBackend::too_few_replicas(long long acknowledged, Millis timeout) const {
  return std::to_string(acknowledged) + " of the " + std::to_string(settings_.min_replicas) +
         " replicas required (min_replicas) acknowledged the write within " +
         std::to_string(timeout.count()) + " ms";
}

void RedisBackend::send_asking(Connection& connection) const {
  const std::string_view asking[] = {"ASKING"};
  const Reply reply = connection.command(asking);
  if (is_error(*reply))
    throw ServerError::of_reply(settings_.server, "ASKING refused: " + describe_reply(*reply),
                                *reply);
}

ReleaseListener::Ticket RedisBackend::watch_releases(const HoldId& hold) {
  // A fair lock's release names the one waiter it wakes.
  return listener_.watch(release_channel_of(hold), release_lets_many_in(hold.kind),
                         hold.kind.fair ? hold.acquisition_id : std::string_view());
}

std::unique_ptr<ReleaseListener::AsyncTicket> RedisBackend::watch_releases_async(
    const HoldId& hold, std::function<void()> on_change) {
  return listener_.watch_async(release_channel_of(hold), release_lets_many_in(hold.kind),
                               hold.kind.fair ? hold.acquisition_id : std::string_view(),
                               std::move(on_change));
}

void RedisBackend::release_if_granted_late(SharedConnection& connection,
                                           const HoldId& hold) noexcept {
  try {
    KindCall texts;
    scripts_.send_unawaited(connection, texts.release(hold, Millis::zero(), publish_command()),
                            [](const redisReply*) {});
  } catch (const ServerError& error) {
    log_withdrawal_failure(error.for_lock(hold.name).what());
  } catch (const std::exception& error) {
    log_withdrawal_failure(error.what());
  }
}

void RedisBackend::withdraw(const HoldId& hold, SteadyClock::time_point caller_deadline) noexcept {
  try {
    KindCall texts;
    const ScriptCall call = texts.withdraw(hold, publish_command());
    const auto check = [&](const Reply& reply) {
      if (reply->type != REDIS_REPLY_INTEGER)
        throw ServerError(settings_.server, script_failure("withdraw", *reply));
    };
    // The script is idempotent per acquisition id, as the release is.
    if (shares_lock_connection())
      with_lock_connection(
          Retry::after_any_failure,
          [&](SharedConnection& connection) {
            check(scripts_.run(connection, call, caller_deadline));
          },
          caller_deadline);
    else
      with_connection(
          Retry::after_any_failure,
          [&](Connection& connection) { check(scripts_.run(connection, call)); }, {},
          caller_deadline);
  } catch (const ServerError& error) {
    log_withdrawal_failure(error.for_lock(hold.name).what());
  } catch (const std::exception& error) {
    log_withdrawal_failure(error.what());
  }
}

ReleaseOutcome RedisBackend::release(const ReleaseRequest& request, Asking asking) {
  Outage outage(settings_.outage_limit);
  return release_through_outage(request, asking, outage, SteadyClock::time_point::max());
}

ReleaseOutcome RedisBackend::release_through_outage(const ReleaseRequest& request, Asking asking,
                                                    Outage& outage,
                                                    SteadyClock::time_point deadline) {
  ReleaseAttempts attempts;
  return outage.ride_through(request.hold.name, deadline,
                             [&] { return release_once(request, asking, attempts); });
}

ReleaseOutcome RedisBackend::release_once(const ReleaseRequest& request, Asking asking,
                                          ReleaseAttempts& attempts) {
  KindCall texts;
  const ScriptCall call = texts.release(request.hold, request.keep_for, publish_command());
  // The script is idempotent per acquisition id, so a retry after a lost reply is safe; but
  // the retry's `not_held` may be the lost attempt's doing (the server ran it, and died or
  // dropped the connection before its reply came), as the courier reads a release not awaited
  // that it sends again: the hold is gone, released, if that attempt went out while the lease
  // was valid; else it had run out, a loss.
  const auto run = [&](auto& connection) {
    const bool retried = std::exchange(attempts.sent, true);
    if (!retried) attempts.first_sent_while_valid = SteadyClock::now() < request.valid_until;
    const ReleaseOutcome outcome = read_release_reply(*scripts_.run(connection, call));
    return retried && attempts.first_sent_while_valid ? ReleaseOutcome::released : outcome;
  };
  if (asking == Asking::no && shares_lock_connection())
    return with_lock_connection(Retry::after_any_failure, run);
  return with_connection(Retry::after_any_failure, [&](Connection& connection) {
    if (asking == Asking::yes) send_asking(connection);
    return run(connection);
  });
}

void RedisBackend::release_unawaited(const ReleaseRequest& request,
                                     const ReleaseReportHandler& report) {
  KindCall texts;
  const ScriptCall call = texts.release(request.hold, request.keep_for, publish_command());
  try {
    if (shares_lock_connection() ? send_release_shared(call, request, report)
                                 : send_release_pooled(call, request, report))
      return;
  } catch (const ServerError&) {
    // No connection could be made: the courier tries again, as it does for a broken one.
  }
  courier_.undelivered(KeptRelease(request), report);
}

std::function<void(const redisReply*)> RedisBackend::on_release_reply(
    const ReleaseRequest& request, const ReleaseReportHandler& report) {
  return [this, release = KeptRelease(request), report](const redisReply* reply) {
    if (reply == nullptr) {
      courier_.undelivered(release, report);
      return;
    }
    ReleaseReport outcome;
    try {
      outcome.outcome = read_release_reply(*reply);
    } catch (const ServerError& error) {
      outcome.failure = error.for_lock(release.lock()).what();
    }
    report(outcome);
  };
}

bool RedisBackend::send_release_shared(const ScriptCall& call, const ReleaseRequest& request,
                                       const ReleaseReportHandler& report) {
  // A scope exit does not connect: with no sound connection, the courier sends the release.
  const auto connection = live_lock_connection();
  if (!connection) return false;
  try {
    ++stats_.round_trips;
    scripts_.send_unawaited(*connection, call, on_release_reply(request, report));
    courier_.sent(request.hold.name);
    return true;
  } catch (const ServerError&) {
    return false;
  }
}

bool RedisBackend::send_release_pooled(const ScriptCall& call, const ReleaseRequest& request,
                                       const ReleaseReportHandler& report) {
  // Connecting here, unlike on the shared connection, holds up no other caller: each scope exit
  // makes its own pooled connection, at once with the others. Waiting for a connection to come
  // back at the pool's cap keeps this client's next acquisition of the lock behind the release.
  const auto connection = borrow(true);
  try {
    ++stats_.round_trips;
    const Connection* sent_on = &*connection;
    scripts_.send_unawaited(
        *connection, call,
        [this, sent_on, lock = std::string(request.hold.name),
         on_reply = on_release_reply(request, report)](const redisReply* reply) {
          courier_.answered(lock, sent_on);
          on_reply(reply);
        });
    courier_.sent(request.hold.name, sent_on);
    return true;
  } catch (const ServerError&) {
    return false;
  }
}

void RedisBackend::read_owed_replies() {
  std::shared_ptr<SharedConnection> shared;
  {
    std::lock_guard guard(lock_connection_mutex_);
    shared = lock_connection_;
  }
  // Any command's reply comes after those owed before it.
  const std::string_view ping[] = {"PING"};
  try {
    if (shared && shared->owes_unawaited()) {
      ++stats_.round_trips;
      (void)shared->command({ping});
    }
  } catch (const ServerError&) {
    // The releases it owed heard of the break, and went back to the courier.
  }
  while (auto connection = pool_.borrow_owing()) {
    try {
      ++stats_.round_trips;
      (*connection)->read_owed();
    } catch (const ServerError&) {
      // Likewise.
    }
  }
}

void RedisBackend::renew(std::span<RenewItem> items, SteadyClock::time_point deadline) {
  std::vector<std::optional<Redirect>> asked(items.size());
  renew(items, deadline, Asking::no, asked);
}

void RedisBackend::renew(std::span<RenewItem> items, SteadyClock::time_point deadline,
                         Asking asking, std::vector<std::optional<Redirect>>& asked) {
  if (items.empty()) return;
  // The core puts the lock and the server in front of the reason.
  const auto fail_all = [&](std::string_view reason) {
    for (auto& item : items) {
      item.outcome = RenewItem::Outcome::failed;
      item.error = reason;
    }
  };
  try {
    // Each call points into its texts, which stay put in the deque.
    std::deque<KindCall> texts;
    std::vector<ScriptCall> calls;
    calls.reserve(items.size());
    for (const auto& item : items) calls.push_back(texts.emplace_back().renew(item.hold, item.ttl));
    with_connection(Retry::after_reset, [&](Connection& connection) {
      const Millis left =
          std::max(std::chrono::ceil<Millis>(deadline - SteadyClock::now()), kShortestRenewalWait);
      const auto limit = connection.limit_command_timeout(left);
      std::vector<Reply> replies;
      if (asking == Asking::no) {
        replies = scripts_.run_all(connection, calls);
      } else {
        // ASKING holds for the one command after it.
        for (const auto& call : calls) {
          send_asking(connection);
          replies.push_back(scripts_.run(connection, call));
        }
      }
      for (std::size_t i = 0; i < items.size(); ++i) {
        const redisReply& reply = *replies[i];
        RenewItem& item = items[i];
        if (reply.type == REDIS_REPLY_INTEGER && (reply.integer == 0 || reply.integer == 1)) {
          item.outcome =
              reply.integer == 1 ? RenewItem::Outcome::renewed : RenewItem::Outcome::lost;
          item.error.clear();
        } else {
          item.outcome = RenewItem::Outcome::failed;
          item.error = script_failure("renew", reply);
          if (auto redirect = redirect_of(reply); redirect && redirect->ask) asked[i] = redirect;
        }
      }
      if (settings_.min_replicas == 0) return;
      // Half of what is left, so that WAIT's reply comes before the read's deadline.
      const Millis timeout = std::min(settings_.replica_timeout(), left / 2);
      const auto acknowledged = replicas_acknowledging(connection, timeout);
      if (acknowledged >= settings_.min_replicas) return;
      // Not renewed until a replica has it: retried while the lease is still valid.
      for (auto& item : items) {
        if (item.outcome != RenewItem::Outcome::renewed) continue;
        item.outcome = RenewItem::Outcome::failed;
        item.error = too_few_replicas(acknowledged, timeout);
      }
    });
  } catch (const ServerError& error) {
    fail_all(error.reason());
  } catch (const std::exception& error) {
    fail_all(error.what());
  }
}

std::unique_ptr<Backend> make_backend(const Url& url, const Options& options,
                                      StatsCounters& stats) {
  auto settings = connection_settings(url, options);
  try {
    return std::make_unique<RedisBackend>(std::move(settings), stats);
  } catch (const ServerError& error) {
    throw error.for_lock("");
  }
}

}  // namespace distlock::detail::redis
