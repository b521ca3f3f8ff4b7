// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/session_keeper.h"

#include <distlock/log.h>

#include "backends/zookeeper/status.h"

namespace distlock::detail::zookeeper {
namespace {

// After a session that never became ready (its credentials refused, say), the next one waits
// this long, so a persistent refusal does not spin.
constexpr Millis kReopenPause{1000};

}  // namespace

SessionKeeper::SessionKeeper(const ZooKeeperSettings& settings, StatsCounters& stats)
    : settings_(settings), stats_(stats), granted_ms_(settings.session_timeout.count()) {
  current_ = std::make_shared<Session>(settings_, stats_, [this] { changed(); });
  thread_ = std::thread([this] { run(); });

  const auto until = SteadyClock::now() + settings_.connect_timeout;
  std::unique_lock lock(mutex_);
  changed_.wait_until(lock, until, [&] { return current_->ready() || current_->dead(); });
  if (current_->ready()) return;
  const auto session = current_;
  lock.unlock();
  stop();
  if (session->auth_failed()) throw ConfigError("", settings_.server, session->auth_error());
  throw status::unavailable(
      "", settings_.server,
      (session->expired()
           ? std::string("the new session expired at once")
           : "could not connect within " + std::to_string(settings_.connect_timeout.count()) +
                 " ms (connect_timeout)"));
}

SessionKeeper::~SessionKeeper() { stop(); }

void SessionKeeper::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  // Closed outside the lock: closing joins the client's threads, which may call changed().
  std::shared_ptr<Session> last;
  {
    std::lock_guard lock(mutex_);
    last = std::move(current_);
  }
}

void SessionKeeper::on_session_end(std::function<void(const Session&)> handler) {
  std::lock_guard lock(mutex_);
  on_end_ = std::move(handler);
}

std::shared_ptr<Session> SessionKeeper::ready(SteadyClock::time_point until) {
  std::unique_lock lock(mutex_);
  const auto usable = [&] { return stopping_ || (current_ && current_->ready()); };
  if (until == SteadyClock::time_point::max())
    changed_.wait(lock, usable);
  else
    changed_.wait_until(lock, until, usable);
  if (current_ && current_->ready()) return current_;
  return nullptr;
}

std::shared_ptr<Session> SessionKeeper::current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

Millis SessionKeeper::session_timeout() const {
  std::lock_guard lock(mutex_);
  if (current_ && current_->timeout() > Millis::zero()) {
    granted_ms_ = current_->timeout().count();
    return current_->timeout();
  }
  return Millis(granted_ms_.load());
}

void SessionKeeper::changed() {
  // Under the lock, so a waiter cannot miss it between checking and waiting.
  { std::lock_guard lock(mutex_); }
  changed_.notify_all();
}

bool SessionKeeper::pause(std::unique_lock<std::mutex>& lock, Millis pause) {
  changed_.wait_for(lock, pause, [&] { return stopping_; });
  return !stopping_;
}

void SessionKeeper::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto session = current_;
    if (session->needs_auth()) {
      lock.unlock();
      session->authenticate();
      lock.lock();
      continue;
    }
    if (!session->dead()) {
      changed_.wait(lock);
      continue;
    }

    const auto handler = on_end_;
    const bool report = session.get() != reported_ && session->id() != 0;
    reported_ = session.get();
    lock.unlock();
    if (handler && report) handler(*session);
    lock.lock();
    if (!session->was_ready() && !pause(lock, kReopenPause)) break;
    lock.unlock();
    std::shared_ptr<Session> fresh;
    try {
      fresh = std::make_shared<Session>(settings_, stats_, [this] { changed(); });
    } catch (const std::exception& error) {
      detail::log(LogLevel::warning, error.what());
    }
    lock.lock();
    if (!fresh) {
      if (!pause(lock, kReopenPause)) break;
      continue;
    }
    auto old = std::exchange(current_, std::move(fresh));
    changed_.notify_all();
    // Closed outside the lock: closing joins the old handle's threads, which may call changed().
    lock.unlock();
    old.reset();
    session.reset();
    lock.lock();
  }
}

}  // namespace distlock::detail::zookeeper
