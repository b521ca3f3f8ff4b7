// SPDX-License-Identifier: Apache-2.0
// Connections for commands, shared by every thread of one backend: at most
// max_connections open at once (with the lock commands' shared one), all to the master the locator
// names; broken ones, and those to a master that has since moved, are dropped, never handed out
// again.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "backends/redis/transport/connection.h"
#include "backends/redis/transport/connection_settings.h"
#include "backends/redis/transport/master_locator.h"

namespace distlock::detail::redis {

class ConnectionPool {
 public:
  // A borrowed connection; goes back to the pool (or, if broken, away) when destroyed.
  class Handle {
   public:
    Handle(ConnectionPool& pool, std::unique_ptr<Connection> connection, bool reused)
        : pool_(pool), connection_(std::move(connection)), reused_(reused) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    Handle(Handle&& other) noexcept = default;
    ~Handle() {
      if (connection_) pool_.give_back(std::move(connection_));
    }

    Connection& operator*() const { return *connection_; }
    Connection* operator->() const { return connection_.get(); }
    // It served an earlier caller, so it may have gone stale meanwhile (a server restart).
    bool reused() const { return reused_; }

   private:
    ConnectionPool& pool_;
    std::unique_ptr<Connection> connection_;
    bool reused_;
  };

  // `settings` and `locator` must outlive the pool. It opens at most `max_open` connections:
  // max_connections, less the one the lock commands share when they do (redis_backend.h).
  ConnectionPool(const ConnectionSettings& settings, const MasterLocator& locator,
                 unsigned max_open)
      : settings_(settings), locator_(locator), max_open_(max_open) {}
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // An idle connection (one the server closed while idle is dropped, not handed out), else a
  // new one; at the cap, waits up to connect_timeout for one to come back. Waiting and
  // connecting end by `caller_deadline` when that comes first (core/step_deadline.h). Throws
  // ServerError.
  Handle borrow(SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  // Always a newly made connection: for the retry after a connection failed.
  Handle borrow_new(SteadyClock::time_point caller_deadline = kNoCallerDeadline);
  // `wanted` once it is idle, or nullopt once `wanted_no_longer()` says so (checked whenever
  // a connection comes back or is closed), or after command_timeout. For a command that must go
  // out after the replies `wanted` still owes.
  std::optional<Handle> borrow_this(const Connection* wanted,
                                    const std::function<bool()>& wanted_no_longer);
  // An idle connection that owes replies to send_unawaited() callers, or nullopt: for the
  // release courier, which reads them where nobody else would.
  std::optional<Handle> borrow_owing();

 private:
  Handle take(bool reuse, SteadyClock::time_point caller_deadline);
  void give_back(std::unique_ptr<Connection> connection);
  // Closes `closing` (without the pool's lock) and tells the waiters.
  void notify_if_closed(std::vector<std::unique_ptr<Connection>>& closing);

  const ConnectionSettings& settings_;
  const MasterLocator& locator_;
  const unsigned max_open_;
  std::mutex mutex_;
  std::condition_variable slot_freed_;
  std::vector<std::unique_ptr<Connection>> idle_;
  unsigned open_ = 0;  // idle, borrowed, and being made
};

}  // namespace distlock::detail::redis
