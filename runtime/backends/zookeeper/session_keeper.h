// SPDX-License-Identifier: Apache-2.0
// Keeps one usable ZooKeeper session: opens the first, authenticates each once connected,
// and opens the next when one expires (after telling the backend, which drops that session's
// holds and raises the loss alarm). Callers wait here for a ready session.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "backends/zookeeper/session.h"
#include "backends/zookeeper/settings.h"
#include "core/stats.h"

namespace distlock::detail::zookeeper {

class SessionKeeper {
 public:
  // Opens the first session and waits up to connect_timeout for it: BackendUnavailable when
  // it does not connect, ConfigError when the server refuses the credentials.
  SessionKeeper(const ZooKeeperSettings& settings, StatsCounters& stats);
  ~SessionKeeper();
  SessionKeeper(const SessionKeeper&) = delete;
  SessionKeeper& operator=(const SessionKeeper&) = delete;

  // Runs on the keeper's thread with each established session that ended, before the next
  // one opens.
  void on_session_end(std::function<void(const Session&)> handler);

  // The current session once it is ready, waiting until `until`; null if none by then.
  std::shared_ptr<Session> ready(SteadyClock::time_point until);
  // The current session, whatever its state.
  std::shared_ptr<Session> current() const;
  // The session timeout the server granted the current session (if it is not established
  // yet, the last one granted; before any, the one asked for).
  Millis session_timeout() const;

 private:
  void run();
  void changed();
  void stop();
  // Waits `pause` unless stopping; false when stopping.
  bool pause(std::unique_lock<std::mutex>& lock, Millis pause);

  const ZooKeeperSettings& settings_;
  StatsCounters& stats_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<Session> current_;
  std::function<void(const Session&)> on_end_;
  const Session* reported_ = nullptr;  // the ended session on_end_ was last called with
  bool stopping_ = false;
  mutable std::atomic<long long> granted_ms_;
  std::thread thread_;
};

}  // namespace distlock::detail::zookeeper
