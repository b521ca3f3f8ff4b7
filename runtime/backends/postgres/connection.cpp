// SPDX-License-Identifier: Apache-2.0
#include "backends/postgres/connection.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <string_view>
#include <vector>

namespace distlock::detail::postgres {

std::string error_text(const char* message) {
  std::string text = message != nullptr ? message : "";
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text.empty() ? "no reason given" : text;
}

namespace {

// invalid_sql_statement_name: no prepared statement of the name in this session.
constexpr std::string_view kPreparedStatementUnknown = "26000";

// libpq gives a failed connection's reason as text only. A "FATAL:" in it is the server's
// answer: final (authentication, no such database or role) unless it says the server cannot
// serve yet (SQLSTATE 57P03: starting up, shutting down, in recovery; 53300: out of slots).
bool refused_for_good(std::string_view message) {
  if (message.find("FATAL:") == std::string_view::npos) return false;
  for (const std::string_view passing :
       {"the database system is", "too many clients", "remaining connection slots"})
    if (message.find(passing) != std::string_view::npos) return false;
  return true;
}

enum class Waited { ready, timed_out, stopped };

// Waits until `fd` is ready for `events`, `stop_fd` (-1: none) is readable, or `until` comes.
// A failed wait counts as timed out.
Waited wait_for_socket(int fd, short events, SteadyClock::time_point until, int stop_fd = -1) {
  pollfd wanted[2] = {{fd, events, 0}, {stop_fd, POLLIN, 0}};
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - SteadyClock::now());
    if (left.count() <= 0) return Waited::timed_out;
    const int ready = ::poll(wanted, stop_fd < 0 ? 1 : 2,
                             static_cast<int>(std::min<long long>(left.count(), 60000)));
    if (ready > 0) return (wanted[1].revents & POLLIN) != 0 ? Waited::stopped : Waited::ready;
    if (ready < 0 && errno != EINTR) return Waited::timed_out;
  }
}

}  // namespace

Connection::Connection(const PostgresSettings& settings, SteadyClock::time_point caller_deadline,
                       int stop_fd)
    : command_timeout_(settings.command_timeout) {
  const char* const keywords[] = {"dbname", "fallback_application_name", nullptr};
  const char* const values[] = {settings.conninfo.c_str(), "distlock", nullptr};
  connection_.reset(PQconnectStartParams(keywords, values, 1));
  if (!connection_) throw ServerError("cannot connect: out of memory");
  connect(settings, caller_deadline, stop_fd);
  set_up_session();
  // The server's notices ("relation ... already exists, skipping") are nothing a service
  // should see on its stderr.
  PQsetNoticeProcessor(
      connection_.get(), [](void*, const char*) {}, nullptr);
}

Connection::~Connection() = default;

void Connection::connect(const PostgresSettings& settings, SteadyClock::time_point caller_deadline,
                         int stop_fd) {
  const auto until = step_deadline(caller_deadline, settings.connect_timeout);
  PGconn* connection = connection_.get();
  // libpq's protocol for a connection made without blocking: wait for what the last poll
  // asked for (first: writable), then poll again. The socket may change (the next host).
  auto polling = PGRES_POLLING_WRITING;
  while (PQstatus(connection) != CONNECTION_BAD && polling != PGRES_POLLING_FAILED) {
    if (polling == PGRES_POLLING_OK) return;
    const Waited waited = wait_for_socket(
        PQsocket(connection), polling == PGRES_POLLING_READING ? POLLIN : POLLOUT, until, stop_fd);
    if (waited == Waited::stopped) throw ServerError("cannot connect: stopped while connecting");
    if (waited == Waited::timed_out) {
      throw ServerError::timeout(
          "cannot connect: not connected in time (" +
          what_ended_step(until, caller_deadline, "connect_timeout", settings.connect_timeout) +
          ")");
    }
    polling = PQconnectPoll(connection);
  }
  const std::string message = error_text(PQerrorMessage(connection));
  std::string reason = "cannot connect: " + without_secrets(message, settings.secrets);
  if (refused_for_good(message)) throw ServerError::connection_refused(std::move(reason));
  throw ServerError(std::move(reason));
}

void Connection::fail(ServerError error) {
  broken_ = true;
  throw std::move(error);
}

bool Connection::wait_readable(SteadyClock::time_point until) const {
  return wait_for_socket(PQsocket(connection_.get()), POLLIN, until) == Waited::ready;
}

bool Connection::consume_input() {
  if (PQconsumeInput(connection_.get()) == 1) return true;
  broken_ = true;
  return false;
}

Result Connection::next_result(std::string_view what, SteadyClock::time_point until) {
  PGconn* connection = connection_.get();
  while (PQisBusy(connection) == 1) {
    if (!wait_readable(until))
      fail(ServerError::timeout("no reply to " + std::string(what) + " in time (command_timeout " +
                                std::to_string(command_timeout_.count()) + " ms)"));
    if (!consume_input())
      fail(ServerError("waiting for a reply: " + error_text(PQerrorMessage(connection))));
  }
  return Result(PQgetResult(connection));
}

Result Connection::await_result(std::string_view what, SteadyClock::time_point until) {
  Result kept;
  for (;;) {
    Result next = next_result(what, until);
    if (!next) break;
    // A statement's error is its answer, whatever follows it.
    if (!kept || PQresultStatus(kept.get()) != PGRES_FATAL_ERROR) kept = std::move(next);
  }
  if (!kept)
    fail(ServerError("no reply to " + std::string(what) + ": " +
                     error_text(PQerrorMessage(connection_.get()))));
  return answered(std::move(kept));
}

Result Connection::answered(Result result) {
  PGconn* connection = connection_.get();
  const auto status = PQresultStatus(result.get());
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
  const char* state = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
  const std::string sqlstate = state != nullptr ? state : "";
  const std::string message = error_text(PQresultErrorMessage(result.get()));
  // A connection the server ended (pg_terminate_backend, a shutdown: class 57; class 08) is
  // a failed exchange, not a refusal.
  if (PQstatus(connection) != CONNECTION_OK || sqlstate.empty() || sqlstate.starts_with("57") ||
      sqlstate.starts_with("08"))
    fail(ServerError(message));
  throw ServerError(message, sqlstate);
}

void Connection::set_up_session() {
  // The statements rely on READ COMMITTED: each takes its snapshot after the one before it
  // waited for the lock's turn, and sees what committed meanwhile. A database or user that
  // defaults to REPEATABLE READ or SERIALIZABLE would have them grant beside holders they
  // cannot see, or fail with serialization errors.
  execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED");
}

template <class Run>
Result Connection::again_if_discarded(Run&& run) {
  try {
    return run();
  } catch (const ServerError& error) {
    if (error.sqlstate() != kPreparedStatementUnknown) throw;
  }
  // The server may know some again (a pipeline's first statement, prepared before it ran): it
  // forgets them all, as this connection does.
  execute("DEALLOCATE ALL");
  prepared_.clear();
  set_up_session();
  return run();
}

void Connection::prepare(const Statement& statement, SteadyClock::time_point until) {
  if (prepared_.contains(statement.name)) return;
  if (PQsendPrepare(connection_.get(), statement.name, statement.text.c_str(), 0, nullptr) != 1)
    fail(ServerError("sending a statement: " + error_text(PQerrorMessage(connection_.get()))));
  await_result(statement.name, until);
  prepared_.insert(statement.name);
}

void Connection::send(const Statement& statement, std::span<const std::string> params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& param : params) values.push_back(param.c_str());
  if (PQsendQueryPrepared(connection_.get(), statement.name, static_cast<int>(values.size()),
                          values.data(), nullptr, nullptr, 0) != 1)
    fail(ServerError("sending a statement: " + error_text(PQerrorMessage(connection_.get()))));
}

Result Connection::run(const Statement& statement, std::span<const std::string> params,
                       SteadyClock::time_point caller_deadline) {
  if (broken_) throw ServerError("the connection broke before");
  const auto until = step_deadline(caller_deadline, command_timeout_);
  return again_if_discarded([&] {
    prepare(statement, until);
    send(statement, params);
    return await_result(statement.name, until);
  });
}

Result Connection::run_after(const Statement& first, std::span<const std::string> first_params,
                             const Statement& statement, std::span<const std::string> params,
                             SteadyClock::time_point caller_deadline) {
  if (broken_) throw ServerError("the connection broke before");
  const auto until = step_deadline(caller_deadline, command_timeout_);
  return again_if_discarded(
      [&] { return pipelined(first, first_params, statement, params, until); });
}

Result Connection::pipelined(const Statement& first, std::span<const std::string> first_params,
                             const Statement& statement, std::span<const std::string> params,
                             SteadyClock::time_point until) {
  prepare(first, until);
  prepare(statement, until);
  PGconn* connection = connection_.get();
  if (PQenterPipelineMode(connection) != 1)
    fail(ServerError("starting a pipeline: " + error_text(PQerrorMessage(connection))));
  send(first, first_params);
  send(statement, params);
  if (PQpipelineSync(connection) != 1)
    fail(ServerError("sending a statement: " + error_text(PQerrorMessage(connection))));
  // Each statement's result and a null after it, then the Sync's: all are read before the
  // connection leaves pipeline mode, whatever they say.
  Result first_result = next_result(first.name, until);
  const Result first_end = next_result(first.name, until);
  Result result = next_result(statement.name, until);
  const Result end = next_result(statement.name, until);
  const Result sync = next_result(statement.name, until);
  if (!first_result || first_end || !result || end || !sync ||
      PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC || PQexitPipelineMode(connection) != 1)
    fail(ServerError("no reply to " + std::string(statement.name) + ": " +
                     error_text(PQerrorMessage(connection))));
  // The first statement's error is the answer: the second was skipped for it.
  answered(std::move(first_result));
  return answered(std::move(result));
}

void Connection::execute(const std::string& sql) {
  if (broken_) throw ServerError("the connection broke before");
  if (PQsendQuery(connection_.get(), sql.c_str()) != 1)
    fail(ServerError("sending a statement: " + error_text(PQerrorMessage(connection_.get()))));
  await_result("the statement", command_deadline());
}

}  // namespace distlock::detail::postgres
