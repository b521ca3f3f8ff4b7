// SPDX-License-Identifier: Apache-2.0
// One libpq connection: statements prepared once per connection and run with text
// parameters, each waited for up to command_timeout on the socket (libpq's asynchronous
// calls), so that a silent server costs a timeout, never a hang. A connection whose exchange
// failed or ran late is broken and never used again.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "backends/postgres/settings.h"
#include "core/step_deadline.h"
#include "util/steady_clock.h"

namespace distlock::detail::postgres {

// A failed exchange with the server, or a statement the server refused.
class ServerError : public std::runtime_error {
 public:
  // `sqlstate`: the server's error code for a refused statement ("42501": no privilege);
  // empty when the exchange itself failed.
  explicit ServerError(std::string reason, std::string sqlstate = {})
      : std::runtime_error(reason),
        reason_(std::move(reason)),
        sqlstate_(std::move(sqlstate)),
        transient_(sqlstate_.empty()) {}
  // The server answered a connection attempt with a refusal that stands (a failed
  // authentication, no such database or role).
  static ServerError connection_refused(std::string reason) {
    ServerError error(std::move(reason));
    error.transient_ = false;
    return error;
  }
  // No reply came in time.
  static ServerError timeout(std::string reason) {
    ServerError error(std::move(reason));
    error.timed_out_ = true;
    return error;
  }
  const std::string& reason() const { return reason_; }
  const std::string& sqlstate() const { return sqlstate_; }
  // The statement was refused: the connection stands, and asking again gets the same answer.
  bool refused() const { return !sqlstate_.empty(); }
  bool timed_out() const { return timed_out_; }
  // Asking again later may get through (core/ride_through.h): the exchange failed or a
  // connection was not made (the server away, restarting, shutting down, out of connection
  // slots), rather than refused for good.
  bool transient() const { return transient_; }

 private:
  std::string reason_;
  std::string sqlstate_;
  bool timed_out_ = false;
  bool transient_ = true;
};

struct ResultFree {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultFree>;

// A statement the backend runs: prepared under `name` on each connection that runs it.
struct Statement {
  const char* name;
  std::string text;
};

class Connection {
 public:
  // Connects and authenticates within the URL's connect_timeout, or by `caller_deadline` when
  // that comes first (core/step_deadline.h), or until `stop_fd` (-1: none) is readable. Throws
  // ServerError.
  Connection(const PostgresSettings& settings, SteadyClock::time_point caller_deadline,
             int stop_fd = -1);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Runs the statement (preparing it first on this connection) and returns its rows, waiting
  // up to command_timeout, or to `caller_deadline` when that comes first. Throws ServerError:
  // refused() for an error the server answered with, else the exchange failed and the
  // connection is broken.
  Result run(const Statement& statement, std::span<const std::string> params,
             SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  // Runs `first`, then `statement`, in one transaction and one round trip (a pipeline ended by
  // one Sync), and returns the rows of `statement`: each statement reads the database as it is
  // when it starts, so `statement` sees what committed while `first` waited for a lock.
  Result run_after(const Statement& first, std::span<const std::string> first_params,
                   const Statement& statement, std::span<const std::string> params,
                   SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  // Runs SQL text without parameters (several statements may be separated by ';').
  void execute(const std::string& sql);
  bool broken() const { return broken_; }
  PGconn* native() const { return connection_.get(); }
  // Waits until the socket has something to read or `until` comes; false when it came, or the
  // wait failed.
  bool wait_readable(SteadyClock::time_point until) const;
  // Takes in what the server sent; false (and broken) when the connection failed.
  bool consume_input();

 private:
  struct ConnectionFree {
    void operator()(PGconn* connection) const { PQfinish(connection); }
  };

  void connect(const PostgresSettings& settings, SteadyClock::time_point caller_deadline,
               int stop_fd);
  // Waits for the result of what was sent, up to `until`.
  Result await_result(std::string_view what, SteadyClock::time_point until);
  // The next result of what was sent (null at the end of one statement's), waited for up to
  // `until`.
  Result next_result(std::string_view what, SteadyClock::time_point until);
  // `result` if it holds rows or nothing; else throws for its error.
  Result answered(Result result);
  void prepare(const Statement& statement, SteadyClock::time_point until);
  // run_after's one try, by `until`.
  Result pipelined(const Statement& first, std::span<const std::string> first_params,
                   const Statement& statement, std::span<const std::string> params,
                   SteadyClock::time_point until);
  // What the statements rely on in the session (READ COMMITTED), set as it is made and again
  // after the session was discarded under the connection.
  void set_up_session();
  // `run` once more when the server no longer knew a prepared statement (26000): a pooler's
  // DISCARD ALL between transactions (PgBouncer's server_reset_query) dropped every prepared
  // statement and reset the session. The statement did not run; nothing ran twice.
  template <class Run>
  Result again_if_discarded(Run&& run);
  void send(const Statement& statement, std::span<const std::string> params);
  SteadyClock::time_point command_deadline() const { return SteadyClock::now() + command_timeout_; }
  // Breaks the connection and throws `error`.
  [[noreturn]] void fail(ServerError error);

  std::unique_ptr<PGconn, ConnectionFree> connection_;
  const Millis command_timeout_;
  std::set<std::string, std::less<>> prepared_;
  bool broken_ = false;
};

// The server's message of a result or connection, on one line.
std::string error_text(const char* message);

}  // namespace distlock::detail::postgres
