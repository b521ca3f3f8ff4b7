// SPDX-License-Identifier: Apache-2.0
#include "backends/postgres/postgres_backend.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <distlock/error.h>
#include <distlock/log.h>

#include "backends/postgres/async_waiter.h"
#include "backends/postgres/attempt.h"
#include "backends/postgres/connection_pool.h"
#include "backends/postgres/lock_statements.h"
#include "backends/postgres/release_listener.h"
#include "backends/postgres/settings.h"
#include "core/ride_through.h"
#include "util/decimal.h"
#include "util/process_label.h"

namespace distlock::detail::postgres {
namespace {

// SQLSTATE 42501: the user may not create the table (or use the one there).
constexpr std::string_view kInsufficientPrivilege = "42501";
// What a CREATE ... IF NOT EXISTS that raced another client's may answer.
constexpr std::string_view kDuplicateTable = "42P07";
constexpr std::string_view kUniqueViolation = "23505";

// An array of texts as PostgreSQL reads one in text form: '{"a","b"}', each element quoted.
std::string text_array(const std::vector<std::string_view>& items) {
  std::string array = "{";
  for (const auto item : items) {
    if (array.size() > 1) array += ',';
    array += '"';
    for (const char c : item) {
      if (c == '"' || c == '\\') array += '\\';
      array += c;
    }
    array += '"';
  }
  return array + "}";
}

// Whether a waiter of this kind keeps something while it waits (a fair place, a writer's mark),
// which lasts one ttl past its latest try and which it gives back when it leaves.
bool keeps_a_place(const LockKind& kind) { return kind.fair || kind.mode == Mode::write; }

const char* value_of(const Result& result, int row, int column) {
  return PQgetisnull(result.get(), row, column) == 1 ? nullptr
                                                     : PQgetvalue(result.get(), row, column);
}

// The grant an acquire statement's first row carries in its first column, the fence; none if
// that is not a number.
std::optional<Grant> grant_of(const Result& result, SteadyClock::time_point sent_at) {
  const auto fence = parse_decimal<std::uint64_t>(PQgetvalue(result.get(), 0, 0));
  if (!fence) return std::nullopt;
  return Grant{*fence, sent_at};
}

// acquire_absent takes the first six of the acquire statement's parameters.
constexpr std::size_t kAbsentParams = 6;

class PostgresBackend final : public Backend {
 public:
  PostgresBackend(PostgresSettings settings, StatsCounters& stats)
      : settings_(std::move(settings)),
        stats_(stats),
        holder_(process_label() + ' '),
        statements_(lock_statements(settings_)),
        pool_(settings_, settings_.max_connections),
        try_once_([this](const AcquireRequest& request, const ReleaseListener::Ticket* watching) {
          return try_once(request, watching);
        }),
        withdraw_([this](const AcquireRequest& request) { withdraw(request); }) {
    create_table_if_missing();
    listener_ = std::make_unique<ReleaseListener>(settings_, stats_);
  }

  std::optional<Grant> acquire(const AcquireRequest& request) override;
  std::shared_ptr<PendingAcquisition> acquire_async(const AcquireRequest& request,
                                                    AsyncExecutor& executor,
                                                    AcquireCompletion done) override {
    auto waiter = std::make_shared<AsyncWaiter>(request, try_once_, withdraw_, *listener_, stats_,
                                                executor, settings_.outage_limit, std::move(done));
    waiter->start();
    return waiter;
  }
  ReleaseOutcome release(const ReleaseRequest& request) override;
  void renew(std::span<RenewItem> items, SteadyClock::time_point deadline) override;
  const std::string& server() const override { return settings_.server; }
  bool supports_read_write() const override { return true; }
  bool supports_permits() const override { return true; }
  bool supports_fair() const override { return true; }
  bool supports_keeping() const override { return true; }

 private:
  // Tries until granted or the deadline; throws BackendUnavailable naming the lock.
  std::optional<Grant> wait_for_grant(const AcquireRequest& request);
  // One try. Throws ServerError.
  Attempt attempt_once(const AcquireRequest& request, const ReleaseListener::Ticket* watching);
  // One try, made again after each transient failure while `outage` lets.
  Attempt try_riding_through(const AcquireRequest& request, const ReleaseListener::Ticket* watching,
                             RideThrough& outage);
  // One try, by the waiter with the ticket `watching` (null: it does not watch); throws
  // BackendUnavailable naming the lock.
  Attempt try_once(const AcquireRequest& request, const ReleaseListener::Ticket* watching);
  // Gives back what a waiter that leaves without the lock keeps (keeps_a_place); a failure is
  // logged, and what was kept runs out one ttl after the waiter's latest try.
  void withdraw(const AcquireRequest& request);
  // Runs the statement on the connection, after the name's turn unless it is the exclusive
  // lock's own (whose upsert of one row needs none), by `caller_deadline` when that comes
  // before command_timeout.
  Result run_statement(Connection& connection, const Statement& statement, std::string_view name,
                       std::span<const std::string> params,
                       SteadyClock::time_point caller_deadline = kNoCallerDeadline) const;
  // Runs `operation` on a pooled connection, and once more on a new one when a reused
  // connection broke without timing out (it had gone stale: a server restart, a terminated
  // session). Borrowing and connecting end by `caller_deadline` when that comes before their
  // own timeouts. Throws ServerError.
  template <class Operation>
  auto with_connection(SteadyClock::time_point caller_deadline, Operation&& operation);
  [[noreturn]] void throw_for_lock(const ServerError& error, std::string_view lock) const;
  void create_table_if_missing();

  const PostgresSettings settings_;
  StatsCounters& stats_;
  const std::string holder_;
  const LockStatements statements_;
  ConnectionPool pool_;
  const AsyncWaiter::TryOnce try_once_;
  const AsyncWaiter::Withdraw withdraw_;
  std::unique_ptr<ReleaseListener> listener_;
};

template <class Operation>
auto PostgresBackend::with_connection(SteadyClock::time_point caller_deadline,
                                      Operation&& operation) {
  {
    auto connection = pool_.borrow(caller_deadline);
    try {
      ++stats_.round_trips;
      return operation(*connection);
    } catch (const ServerError& error) {
      // A silent server is not asked twice: the caller's time is up.
      if (!connection->broken() || !connection.reused() || error.timed_out()) throw;
    }
  }
  auto connection = pool_.borrow(caller_deadline, false);
  ++stats_.round_trips;
  return operation(*connection);
}

void PostgresBackend::throw_for_lock(const ServerError& error, std::string_view lock) const {
  if (error.transient())
    throw TransientUnavailable(std::string(lock), settings_.server, error.reason());
  throw BackendUnavailable(std::string(lock), settings_.server, error.reason());
}

void PostgresBackend::create_table_if_missing() {
  try {
    with_connection(kNoCallerDeadline, [&](Connection& connection) {
      const std::vector<std::string> names{quoted_identifier(settings_.table),
                                           quoted_identifier(settings_.fence_sequence),
                                           quoted_identifier(settings_.holds_table)};
      // Whether the tables are there, and the lock table with every column the statements use.
      const Statement present{
          "distlock_tables_present",
          "SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AND "
          "to_regclass($3) IS NOT NULL, EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = "
          "to_regclass($1) AND attname = 'waited' AND NOT attisdropped)"};
      const Result found = connection.run(present, names);
      if (std::string_view(PQgetvalue(found.get(), 0, 0)) == "t") {
        if (std::string_view(PQgetvalue(found.get(), 0, 1)) == "t") return;
        throw ConfigError("", settings_.server,
                          "the lock table " + settings_.table +
                              " has no column waited (it was made for an earlier distlock); "
                              "add it as the table's owner: ALTER TABLE " +
                              settings_.table +
                              " ADD COLUMN waited boolean NOT NULL DEFAULT false");
      }
      try {
        connection.execute(lock_table_ddl(settings_));
      } catch (const ServerError& error) {
        if (error.sqlstate() == kInsufficientPrivilege)
          throw ConfigError("", settings_.server,
                            "the lock table " + settings_.table + " or " + settings_.holds_table +
                                " is missing and this user may not create it (" + error.reason() +
                                "); create it once as its owner (the guide's PostgreSQL section "
                                "has the SQL), or grant CREATE on the schema");
        // Another client created it at the same moment.
        if (error.sqlstate() != kDuplicateTable && error.sqlstate() != kUniqueViolation) throw;
      }
    });
  } catch (const ServerError& error) {
    throw BackendUnavailable("", settings_.server, error.reason());
  }
}

Result PostgresBackend::run_statement(Connection& connection, const Statement& statement,
                                      std::string_view name, std::span<const std::string> params,
                                      SteadyClock::time_point caller_deadline) const {
  if (&statement == &statements_.acquire_absent || &statement == &statements_.acquire ||
      &statement == &statements_.release_sole || &statement == &statements_.release)
    return connection.run(statement, params, caller_deadline);
  const std::string turn_params[] = {std::string(name)};
  return connection.run_after(statements_.turn, turn_params, statement, params, caller_deadline);
}

Attempt PostgresBackend::try_once(const AcquireRequest& request,
                                  const ReleaseListener::Ticket* watching) {
  try {
    return attempt_once(request, watching);
  } catch (const ServerError& error) {
    throw_for_lock(error, request.hold.name);
  }
}

Attempt PostgresBackend::try_riding_through(const AcquireRequest& request,
                                            const ReleaseListener::Ticket* watching,
                                            RideThrough& outage) {
  for (;;) {
    try {
      Attempt attempt = attempt_once(request, watching);
      outage.succeeded();
      return attempt;
    } catch (const ServerError& error) {
      if (!error.transient() ||
          !outage.pause_before_retry(
              request.deadline,
              TransientUnavailable(std::string(request.hold.name), settings_.server, error.reason())
                  .what()))
        throw_for_lock(error, request.hold.name);
    }
  }
}

Attempt PostgresBackend::attempt_once(const AcquireRequest& request,
                                      const ReleaseListener::Ticket* watching) {
  const LockKind& kind = request.hold.kind;
  const std::string holder =
      holder_ + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
  std::vector<std::string> params{std::string(request.hold.name), std::string(request.hold.owner),
                                  std::to_string(request.ttl.count()),
                                  std::string(request.hold.acquisition_id), holder};
  const Statement* statement = &statements_.acquire;
  if (kind.semaphore()) {
    statement = &statements_.acquire_permit;
    params.push_back(std::to_string(kind.permits));
  } else if (kind.mode == Mode::exclusive) {
    params.emplace_back(listener_->watched(request.hold, watching) ? "t" : "f");
    params.emplace_back(request.reentry ? "t" : "f");
    if (kind.fair) statement = &statements_.acquire_fair;
  } else {
    params.emplace_back(request.reentry ? "t" : "f");
    if (kind.mode == Mode::read) {
      statement = &statements_.acquire_read;
      params.emplace_back(request.holds_write ? "t" : "f");
    } else {
      statement = &statements_.acquire_write;
    }
  }
  // A plain lock is first asked for as if nobody had it, which is the common case; a reentry
  // finds its own row.
  const bool absent_first = statement == &statements_.acquire && !request.reentry;
  return with_connection(request.deadline, [&](Connection& connection) {
    // The lease's validity counts from the send time of the statement that won.
    auto sent_at = SteadyClock::now();
    Attempt attempt;
    if (absent_first) {
      const Result inserted = connection.run(
          statements_.acquire_absent, std::span(params).first(kAbsentParams), request.deadline);
      if (PQntuples(inserted.get()) == 1) {
        attempt.grant = grant_of(inserted, sent_at);
        return attempt;
      }
      ++stats_.round_trips;
      sent_at = SteadyClock::now();
    }
    const Result result =
        run_statement(connection, *statement, request.hold.name, params, request.deadline);
    if (PQntuples(result.get()) == 0) return attempt;
    if (value_of(result, 0, 0) != nullptr) {
      attempt.grant = grant_of(result, sent_at);
      return attempt;
    }
    if (const char* left = value_of(result, 0, 1))
      attempt.retry_in_ms = parse_decimal<long long>(left).value_or(0);
    // A place lasts one ttl past the latest try: asking again every third of it keeps it.
    if (keeps_a_place(kind))
      attempt.retry_in_ms = std::min<long long>(attempt.retry_in_ms, request.ttl.count() / 3);
    return attempt;
  });
}

void PostgresBackend::withdraw(const AcquireRequest& request) {
  if (!keeps_a_place(request.hold.kind)) return;
  const std::vector<std::string> params{std::string(request.hold.name),
                                        std::string(request.hold.acquisition_id)};
  try {
    with_connection(kNoCallerDeadline, [&](Connection& connection) {
      (void)run_statement(connection, statements_.withdraw, request.hold.name, params);
    });
  } catch (const ServerError& error) {
    log(LogLevel::warning, std::string(request.hold.name) + " on " + settings_.server +
                               ": a waiter that left could not give its place back (" +
                               error.reason() + "); it runs out one ttl after its latest try");
  }
}

std::optional<Grant> PostgresBackend::acquire(const AcquireRequest& request) {
  std::optional<Grant> grant;
  try {
    grant = wait_for_grant(request);
  } catch (...) {
    withdraw(request);
    throw;
  }
  if (!grant) withdraw(request);
  return grant;
}

std::optional<Grant> PostgresBackend::wait_for_grant(const AcquireRequest& request) {
  RideThrough outage(settings_.outage_limit);
  Attempt attempt = try_riding_through(request, nullptr, outage);
  if (attempt.grant || SteadyClock::now() >= request.deadline) return attempt.grant;
  ++stats_.contended;
  const auto ticket = listener_->watch(request.hold);
  // Only a try made while the LISTEN holds is sure to hear of every later release.
  ticket->wait_listening(std::min(retry_time(attempt.retry_in_ms), request.deadline));
  for (;;) {
    const bool heard = ticket->listening();
    const auto seen = ticket->generation();
    attempt = try_riding_through(request, ticket.get(), outage);
    if (attempt.grant) {
      attempt.grant->contended = true;
      return attempt.grant;
    }
    if (SteadyClock::now() >= request.deadline) return std::nullopt;
    const auto until = std::min(retry_time(attempt.retry_in_ms), request.deadline);
    bool released = false;
    if (heard) {
      WaitingScope waiting(stats_);
      released = ticket->wait_for_release(seen, until);
    } else {
      released = ticket->wait_for_release(seen, until);
    }
    ++(released ? stats_.woken_by_release : stats_.woken_by_timeout);
  }
}

ReleaseOutcome PostgresBackend::release(const ReleaseRequest& request) {
  const std::vector<std::string> params{std::string(request.hold.name),
                                        std::string(request.hold.acquisition_id),
                                        std::to_string(request.keep_for.count())};
  const LockKind& kind = request.hold.kind;
  const Statement& statement = kind.semaphore() || kind.mode != Mode::exclusive
                                   ? statements_.release_shared
                               : kind.fair ? statements_.release_fair
                                           : statements_.release;
  // The common case first: the acquisition is the lock's only hold and frees it.
  const bool sole_first = &statement == &statements_.release && request.keep_for.count() == 0;
  // A release sent again after the first went out and its reply was lost: the first may have
  // removed the hold, so "not held" then means released if the first went out while the lease
  // was valid; else the hold had run out before, a loss (as on Redis).
  bool sent_before = false;
  bool first_sent_while_valid = false;
  try {
    return with_connection(kNoCallerDeadline, [&](Connection& connection) {
      const bool retried = std::exchange(sent_before, true);
      if (!retried) first_sent_while_valid = SteadyClock::now() < request.valid_until;
      if (sole_first) {
        const Result deleted = connection.run(statements_.release_sole, std::span(params).first(2));
        if (PQntuples(deleted.get()) == 1) return ReleaseOutcome::released;
        ++stats_.round_trips;
      }
      const Result result = run_statement(connection, statement, request.hold.name, params);
      const bool removed = std::string_view(PQgetvalue(result.get(), 0, 0)) != "0";
      return removed || (retried && first_sent_while_valid) ? ReleaseOutcome::released
                                                            : ReleaseOutcome::not_held;
    });
  } catch (const ServerError& error) {
    throw_for_lock(error, request.hold.name);
  }
}

void PostgresBackend::renew(std::span<RenewItem> items, SteadyClock::time_point deadline) {
  if (items.empty()) return;
  std::vector<std::string_view> names;
  std::vector<std::string_view> ids;
  std::vector<std::string_view> ttls_text;
  std::vector<std::string> ttls;
  names.reserve(items.size());
  ids.reserve(items.size());
  ttls.reserve(items.size());
  ttls_text.reserve(items.size());
  for (const auto& item : items) {
    names.push_back(item.hold.name);
    ids.push_back(item.hold.acquisition_id);
    ttls.push_back(std::to_string(item.ttl.count()));
  }
  for (const auto& ttl : ttls) ttls_text.push_back(ttl);
  const std::vector<std::string> params{text_array(names), text_array(ids), text_array(ttls_text)};
  try {
    const auto renewed = with_connection(deadline, [&](Connection& connection) {
      const Result result = connection.run(statements_.renew, params, deadline);
      std::vector<std::string> found;
      const int rows = PQntuples(result.get());
      found.reserve(static_cast<std::size_t>(rows));
      for (int row = 0; row < rows; ++row) found.emplace_back(PQgetvalue(result.get(), row, 0));
      return found;
    });
    for (auto& item : items) {
      const bool held =
          std::find(renewed.begin(), renewed.end(), item.hold.acquisition_id) != renewed.end();
      item.outcome = held ? RenewItem::Outcome::renewed : RenewItem::Outcome::lost;
      item.error.clear();
    }
  } catch (const ServerError& error) {
    for (auto& item : items) {
      item.outcome = RenewItem::Outcome::failed;
      item.error = error.reason();
    }
  }
}

}  // namespace

std::unique_ptr<Backend> make_backend(std::string_view url, const Options& options,
                                      StatsCounters& stats) {
  return std::make_unique<PostgresBackend>(postgres_settings(url, options), stats);
}

}  // namespace distlock::detail::postgres
