// SPDX-License-Identifier: Apache-2.0
#include "backends/postgres/release_listener.h"

#include <poll.h>
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <distlock/log.h>

#include "backends/postgres/connection.h"

namespace distlock::detail::postgres {
namespace {

// After a failed connection, the next try comes after this pause, doubled up to a second.
constexpr std::chrono::milliseconds kFirstPause{50};
constexpr std::chrono::milliseconds kLongestPause{1000};

// The listener's key of the lock a hold is of: a letter for the kind (as the notifications
// name them), then the name.
std::string listened_lock(const HoldId& hold) {
  const char kind = hold.kind.semaphore() ? 'p' : hold.kind.mode == Mode::exclusive ? 'x' : 'r';
  return kind + std::string(hold.name);
}

// Reads what the server sent for the heartbeat query on `connection`; whether all of it came.
bool answered(const Connection& connection) {
  while (PQisBusy(connection.native()) == 0) {
    PGresult* result = PQgetResult(connection.native());
    if (result == nullptr) return true;
    PQclear(result);
  }
  return false;
}

}  // namespace

ReleaseListener::Ticket::Ticket(ReleaseListener& listener, Locks::value_type& lock,
                                std::string fair_id, std::function<void()> on_change)
    : listener_(listener),
      lock_(lock),
      fair_id_(std::move(fair_id)),
      on_change_(std::move(on_change)) {}

ReleaseListener::Ticket::~Ticket() {
  std::lock_guard lock(listener_.mutex_);
  lock_.second.tickets.erase(entry_);
  --listener_.tickets_;
  if (lock_.second.tickets.empty()) listener_.locks_.erase(lock_.first);
}

void ReleaseListener::Ticket::pass_on() {
  std::lock_guard lock(listener_.mutex_);
  if (lock_.second.tickets.size() > 1) listener_.wake_one_locked(lock_.second, this);
}

bool ReleaseListener::Ticket::wait_listening(TimePoint until) const {
  std::unique_lock lock(listener_.mutex_);
  return listener_.listening_changed_.wait_until(lock, until, [&] { return listener_.listening_; });
}

bool ReleaseListener::Ticket::listening() const {
  std::lock_guard lock(listener_.mutex_);
  return listener_.listening_;
}

std::uint64_t ReleaseListener::Ticket::generation() const {
  std::lock_guard lock(listener_.mutex_);
  return lock_.second.generation + own_wakes_;
}

bool ReleaseListener::Ticket::wait_for_release(std::uint64_t seen, TimePoint until) const {
  std::unique_lock lock(listener_.mutex_);
  return lock_.second.released.wait_until(
      lock, until, [&] { return lock_.second.generation + own_wakes_ != seen; });
}

ReleaseListener::ReleaseListener(const PostgresSettings& settings, StatsCounters& stats)
    : settings_(settings), stats_(stats), stop_(settings.server) {
  thread_ = std::thread([this] {
    ::pthread_setname_np(::pthread_self(), "distlock-listen");
    run();
  });
}

ReleaseListener::~ReleaseListener() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.signal();
  thread_.join();
}

std::unique_ptr<ReleaseListener::Ticket> ReleaseListener::watch(const HoldId& hold,
                                                                std::function<void()> on_change) {
  std::lock_guard guard(mutex_);
  auto& entry = *locks_.try_emplace(listened_lock(hold)).first;
  auto ticket = std::make_unique<Ticket>(
      *this, entry, hold.kind.fair ? std::string(hold.acquisition_id) : std::string(),
      std::move(on_change));
  ticket->entry_ = entry.second.tickets.insert(entry.second.tickets.end(), ticket.get());
  ++tickets_;
  return ticket;
}

bool ReleaseListener::watched(const HoldId& hold, const Ticket* own) const {
  if (tickets_ == 0 || (own != nullptr && tickets_ == 1)) return false;
  const std::string lock = listened_lock(hold);
  std::lock_guard guard(mutex_);
  const auto found = locks_.find(lock);
  if (found == locks_.end()) return false;
  return found->second.tickets.size() > (own != nullptr ? 1u : 0u);
}

void ReleaseListener::run() {
  auto pause = kFirstPause;
  bool warned = false;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    try {
      serve();
      pause = kFirstPause;
      warned = false;
    } catch (const ServerError& error) {
      set_listening(false);
      {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
      }
      if (!warned)
        log(LogLevel::warning, settings_.server + ": cannot listen for releases (" +
                                   error.reason() +
                                   "); waiters wait out their holders' ttl until it can");
      warned = true;
    }
    pollfd stop{stop_.fd(), POLLIN, 0};
    ::poll(&stop, 1, static_cast<int>(pause.count()));
    pause = std::min(pause * 2, kLongestPause);
  }
}

void ReleaseListener::serve() {
  Connection connection(settings_, kNoCallerDeadline, stop_.fd());
  connection.execute("LISTEN \"" + settings_.channel + "\"");
  set_listening(true);
  // A connection nothing arrives on may have died without a word (a NAT or a load balancer that
  // forgot it, a host gone), and the releases sent to it are lost: after a command timeout of
  // silence it is asked an empty query, and one that does not answer within another is given up
  // for a new one (whose LISTEN wakes every waiter to look again).
  const Millis silence = settings_.command_timeout;
  SteadyClock::time_point heard_at = SteadyClock::now();
  std::optional<SteadyClock::time_point> asked_at;
  pollfd wanted[2] = {{PQsocket(connection.native()), POLLIN, 0}, {stop_.fd(), POLLIN, 0}};
  for (;;) {
    int timeout_ms = -1;
    if (silence.count() > 0) {
      const auto due = asked_at.value_or(heard_at) + silence;
      timeout_ms = static_cast<int>(
          std::max<std::int64_t>(0, std::chrono::ceil<Millis>(due - SteadyClock::now()).count()));
    }
    if (::poll(wanted, 2, timeout_ms) < 0) continue;
    if ((wanted[1].revents & POLLIN) != 0) {
      stop_.drain();
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      continue;
    }
    if (wanted[0].revents != 0) {
      if (!connection.consume_input())
        throw ServerError("the connection that listens for releases broke: " +
                          error_text(PQerrorMessage(connection.native())));
      heard_at = SteadyClock::now();
      if (asked_at && answered(connection)) asked_at.reset();
      while (PGnotify* notification = PQnotifies(connection.native())) {
        released(notification->extra != nullptr ? notification->extra : "");
        PQfreemem(notification);
      }
      continue;
    }
    if (asked_at) {
      if (SteadyClock::now() - *asked_at >= silence)
        throw ServerError("the connection that listens for releases did not answer within " +
                          std::to_string(silence.count()) + " ms (command_timeout)");
    } else if (SteadyClock::now() - heard_at >= silence) {
      if (PQsendQuery(connection.native(), "") != 1)
        throw ServerError("the connection that listens for releases broke: " +
                          error_text(PQerrorMessage(connection.native())));
      asked_at = SteadyClock::now();
    }
  }
}

void ReleaseListener::released(std::string_view payload) {
  const char kind = payload.empty() ? '\0' : payload.front();
  std::string_view name = payload.empty() ? payload : payload.substr(1);
  std::string_view fair_id;
  if (kind == 'n') {
    const auto newline = name.find('\n');
    fair_id = name.substr(0, newline);
    name = newline == std::string_view::npos ? std::string_view() : name.substr(newline + 1);
  }
  std::lock_guard lock(mutex_);
  if (name.empty()) {
    for (auto& [lock_name, waited] : locks_) {
      ++stats_.notifications;
      wake_locked(waited);
    }
    return;
  }
  const char listened_kind = kind == 'r' ? 'r' : kind == 'p' || kind == 'q' ? 'p' : 'x';
  const auto found = locks_.find(listened_kind + std::string(name));
  if (found == locks_.end()) return;
  ++stats_.notifications;
  if (kind == 'n')
    wake_named_locked(found->second, fair_id);
  else if (kind == 'f' || kind == 'p')
    wake_one_locked(found->second);
  else
    wake_locked(found->second);
}

void ReleaseListener::wake_locked(Lock& lock) {
  ++lock.generation;
  lock.released.notify_all();
  for (const Ticket* ticket : lock.tickets)
    if (ticket->on_change_) ticket->on_change_();
}

void ReleaseListener::wake_one_locked(Lock& lock, const Ticket* passing) {
  ++lock.generation;
  lock.released.notify_one();
  // The first waiter without a thread goes to the back once woken: the next release wakes
  // another.
  const auto woken = std::find_if(
      lock.tickets.begin(), lock.tickets.end(),
      [passing](const Ticket* ticket) { return ticket != passing && bool(ticket->on_change_); });
  if (woken == lock.tickets.end()) return;
  Ticket* ticket = *woken;
  lock.tickets.splice(lock.tickets.end(), lock.tickets, woken);
  ticket->on_change_();
}

void ReleaseListener::wake_named_locked(Lock& lock, std::string_view fair_id) {
  bool woke = false;
  for (Ticket* ticket : lock.tickets) {
    if (!ticket->fair_id_.empty() && ticket->fair_id_ != fair_id) continue;
    ++ticket->own_wakes_;
    woke = true;
    if (ticket->on_change_) ticket->on_change_();
  }
  if (woke) lock.released.notify_all();
}

void ReleaseListener::set_listening(bool listening) {
  std::lock_guard lock(mutex_);
  if (listening_ == listening) return;
  listening_ = listening;
  listening_changed_.notify_all();
  // A waiter that tried while nobody listened may have missed a release.
  if (listening)
    for (auto& [name, waited] : locks_) wake_locked(waited);
}

}  // namespace distlock::detail::postgres
