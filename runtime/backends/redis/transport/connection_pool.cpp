// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/connection_pool.h"

#include <algorithm>
#include <chrono>

#include "backends/redis/transport/server_error.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

ConnectionPool::Handle ConnectionPool::borrow(SteadyClock::time_point caller_deadline) {
  return take(true, caller_deadline);
}

ConnectionPool::Handle ConnectionPool::borrow_new(SteadyClock::time_point caller_deadline) {
  return take(false, caller_deadline);
}

std::optional<ConnectionPool::Handle> ConnectionPool::borrow_this(
    const Connection* wanted, const std::function<bool()>& wanted_no_longer) {
  std::unique_lock lock(mutex_);
  std::vector<std::unique_ptr<Connection>>::iterator found;
  // Its holder gives it back, or drops it, within what its command may take; longer, and the
  // caller goes ahead on another connection rather than wait on.
  const bool settled =
      slot_freed_.wait_until(lock, SteadyClock::now() + settings_.command_timeout, [&] {
        found = std::find_if(idle_.begin(), idle_.end(),
                             [&](const auto& connection) { return connection.get() == wanted; });
        return found != idle_.end() || wanted_no_longer();
      });
  if (!settled || found == idle_.end()) return std::nullopt;
  std::unique_ptr<Connection> connection = std::move(*found);
  idle_.erase(found);
  lock.unlock();
  return std::optional<Handle>(std::in_place, *this, std::move(connection), true);
}

std::optional<ConnectionPool::Handle> ConnectionPool::borrow_owing() {
  std::unique_lock lock(mutex_);
  const auto found = std::find_if(idle_.begin(), idle_.end(), [](const auto& connection) {
    return connection->owes_unawaited();
  });
  if (found == idle_.end()) return std::nullopt;
  std::unique_ptr<Connection> connection = std::move(*found);
  idle_.erase(found);
  lock.unlock();
  return std::optional<Handle>(std::in_place, *this, std::move(connection), true);
}

ConnectionPool::Handle ConnectionPool::take(bool reuse, SteadyClock::time_point caller_deadline) {
  std::unique_lock lock(mutex_);
  const auto until = step_deadline(caller_deadline, settings_.connect_timeout);
  const bool available =
      slot_freed_.wait_until(lock, until, [&] { return !idle_.empty() || open_ < max_open_; });
  if (!available)
    throw ServerError(
        settings_.server,
        "all " + std::to_string(max_open_) + " pooled connections stayed busy (" +
            what_ended_step(until, caller_deadline, "connect_timeout", settings_.connect_timeout) +
            "; max_connections=" + std::to_string(settings_.max_connections) +
            (max_open_ < settings_.max_connections ? ", one of them shared by the lock commands)"
                                                   : ")"),
        true);
  const std::uint64_t generation = locator_.generation();
  std::vector<std::unique_ptr<Connection>> stale;
  // Connections to a master that has moved since go.
  for (auto it = idle_.begin(); it != idle_.end();) {
    if ((*it)->generation() == generation) {
      ++it;
      continue;
    }
    stale.push_back(std::move(*it));
    it = idle_.erase(it);
    --open_;
  }
  // Most recently used first: the likeliest to be alive. One the server closed while it sat
  // idle would take a command in and never run it.
  while (reuse && !idle_.empty()) {
    std::unique_ptr<Connection> connection = std::move(idle_.back());
    idle_.pop_back();
    if (connection->found_closed()) {
      stale.push_back(std::move(connection));
      --open_;
      continue;
    }
    lock.unlock();
    notify_if_closed(stale);
    return Handle(*this, std::move(connection), true);
  }
  if (open_ < max_open_) {
    ++open_;
  } else {
    // At the cap, so one is idle: its slot goes to the new connection.
    stale.push_back(std::move(idle_.back()));
    idle_.pop_back();
  }
  lock.unlock();
  notify_if_closed(stale);
  try {
    const MasterLocator::Master master = locator_.current();
    return Handle(
        *this,
        std::make_unique<Connection>(settings_, master.address, master.generation, caller_deadline),
        false);
  } catch (...) {
    lock.lock();
    --open_;
    lock.unlock();
    slot_freed_.notify_one();
    throw;
  }
}

void ConnectionPool::notify_if_closed(std::vector<std::unique_ptr<Connection>>& closing) {
  if (closing.empty()) return;
  closing.clear();
  // Closed, they owe nothing any more: a borrow_this() waiting for one looks again, and a
  // taker finds a slot.
  slot_freed_.notify_all();
}

void ConnectionPool::give_back(std::unique_ptr<Connection> connection) {
  std::vector<std::unique_ptr<Connection>> dropped;
  {
    std::lock_guard lock(mutex_);
    if (connection->generation() != locator_.generation()) {
      --open_;
      dropped.push_back(std::move(connection));
    } else if (connection->broken()) {
      // One broken connection usually means the server restarted or the network dropped:
      // the idle ones are likely dead too, and each would fail its next caller once.
      dropped = std::move(idle_);
      idle_.clear();
      open_ -= static_cast<unsigned>(dropped.size()) + 1;
      dropped.push_back(std::move(connection));
    } else {
      idle_.push_back(std::move(connection));
    }
  }
  // Closed before the waiters are told: closing answers the releases a connection still owed,
  // which a borrow_this() waiting for it looks for.
  dropped.clear();
  slot_freed_.notify_all();
}

}  // namespace distlock::detail::redis
