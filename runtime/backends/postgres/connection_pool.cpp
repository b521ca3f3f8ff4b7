// SPDX-License-Identifier: Apache-2.0
#include "backends/postgres/connection_pool.h"

#include <utility>

#include "core/step_deadline.h"

namespace distlock::detail::postgres {

ConnectionPool::ConnectionPool(const PostgresSettings& settings, unsigned limit)
    : settings_(settings), limit_(limit) {}

ConnectionPool::Handle ConnectionPool::borrow(SteadyClock::time_point caller_deadline, bool reuse) {
  std::unique_lock lock(mutex_);
  const auto until = step_deadline(caller_deadline, settings_.command_timeout);
  for (;;) {
    if (reuse && !idle_.empty()) {
      auto connection = std::move(idle_.back());
      idle_.pop_back();
      return Handle(*this, std::move(connection), true);
    }
    if (open_ < limit_ || (!reuse && !idle_.empty())) {
      // A new connection in place of an idle one, when asked for: that one may be stale too.
      if (open_ >= limit_) {
        idle_.pop_back();
        --open_;
      }
      ++open_;
      lock.unlock();
      try {
        return Handle(*this, std::make_unique<Connection>(settings_, caller_deadline), false);
      } catch (...) {
        lock.lock();
        --open_;
        returned_.notify_one();
        throw;
      }
    }
    if (returned_.wait_until(lock, until) == std::cv_status::timeout)
      throw ServerError::timeout(
          "all " + std::to_string(limit_) + " connections (max_connections) stayed busy (" +
          what_ended_step(until, caller_deadline, "command_timeout", settings_.command_timeout) +
          ")");
  }
}

void ConnectionPool::give_back(std::unique_ptr<Connection> connection) {
  std::lock_guard lock(mutex_);
  if (connection && !connection->broken())
    idle_.push_back(std::move(connection));
  else
    --open_;
  returned_.notify_one();
}

}  // namespace distlock::detail::postgres
