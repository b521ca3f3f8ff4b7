// SPDX-License-Identifier: Apache-2.0
// The connections the lock statements run on, up to max_connections: one statement at a time
// on each, a caller borrowing one for its statement. A broken connection is dropped, not
// given back.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/postgres/connection.h"
#include "backends/postgres/settings.h"

namespace distlock::detail::postgres {

class ConnectionPool {
 public:
  class Handle {
   public:
    Handle(ConnectionPool& pool, std::unique_ptr<Connection> connection, bool reused)
        : pool_(pool), connection_(std::move(connection)), reused_(reused) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { pool_.give_back(std::move(connection_)); }
    Connection& operator*() const { return *connection_; }
    Connection* operator->() const { return connection_.get(); }
    // Whether it served earlier callers: a reused connection that broke may have gone stale
    // (a server restart), where a new one would work.
    bool reused() const { return reused_; }

   private:
    ConnectionPool& pool_;
    std::unique_ptr<Connection> connection_;
    bool reused_;
  };

  // `settings` must outlive the pool.
  ConnectionPool(const PostgresSettings& settings, unsigned limit);

  // An idle connection (`reuse`), or a new one while there are fewer than the limit; else
  // waits for one to come back, up to command_timeout or `caller_deadline`, whichever comes
  // first (core/step_deadline.h; a new connection likewise with connect_timeout). Throws
  // ServerError.
  Handle borrow(SteadyClock::time_point caller_deadline, bool reuse = true);

 private:
  void give_back(std::unique_ptr<Connection> connection);

  const PostgresSettings& settings_;
  const unsigned limit_;
  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<Connection>> idle_;
  unsigned open_ = 0;  // idle and borrowed
};

}  // namespace distlock::detail::postgres
