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

}  // namespace

Connection::Connection(const PostgresSettings& settings)
    : command_timeout_(settings.command_timeout) {
  std::vector<const char*> keywords{"dbname", "fallback_application_name"};
  std::vector<const char*> values{settings.conninfo.c_str(), "distlock"};
  if (!settings.connect_timeout_seconds.empty()) {
    keywords.push_back("connect_timeout");
    values.push_back(settings.connect_timeout_seconds.c_str());
  }
  keywords.push_back(nullptr);
  values.push_back(nullptr);
  connection_.reset(PQconnectdbParams(keywords.data(), values.data(), 1));
  if (!connection_) throw ServerError("cannot connect: out of memory");
  if (PQstatus(connection_.get()) != CONNECTION_OK) {
    const std::string message = error_text(PQerrorMessage(connection_.get()));
    std::string reason = "cannot connect: " + without_secrets(message, settings.secrets);
    if (refused_for_good(message)) throw ServerError::connection_refused(std::move(reason));
    throw ServerError(std::move(reason));
  }
  // The server's notices ("relation ... already exists, skipping") are nothing a service
  // should see on its stderr.
  PQsetNoticeProcessor(
      connection_.get(), [](void*, const char*) {}, nullptr);
}

Connection::~Connection() = default;

void Connection::fail(ServerError error) {
  broken_ = true;
  throw std::move(error);
}

bool Connection::wait_readable(SteadyClock::time_point until) const {
  pollfd wanted{PQsocket(connection_.get()), POLLIN, 0};
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - SteadyClock::now());
    if (left.count() <= 0) return false;
    const int ready =
        ::poll(&wanted, 1, static_cast<int>(std::min<long long>(left.count(), 60000)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
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

Result Connection::run(const Statement& statement, std::span<const std::string> params) {
  return run(statement, params, command_deadline());
}

Result Connection::run(const Statement& statement, std::span<const std::string> params,
                       SteadyClock::time_point until) {
  if (broken_) throw ServerError("the connection broke before");
  prepare(statement, until);
  send(statement, params);
  return await_result(statement.name, until);
}

Result Connection::run_after(const Statement& first, std::span<const std::string> first_params,
                             const Statement& statement, std::span<const std::string> params) {
  if (broken_) throw ServerError("the connection broke before");
  const auto until = command_deadline();
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
