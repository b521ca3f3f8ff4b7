// SPDX-License-Identifier: Apache-2.0
// Wakes local waiters when a lock they wait for is released: LISTEN on the lock table's
// channel, over one connection and one thread per backend. A release that frees a lock, or
// keeps it taken by nobody for a while (hold_at_least), sends a NOTIFY naming it
// (lock_statements.h); the notification arrives when the release commits.
//
// A waiter cannot miss a release if it goes about it in this order, as on Redis:
//
//   auto ticket = listener.watch(lock);
//   ticket->wait_listening(limit);          // the LISTEN holds on the current connection
//   for (;;) {
//     const auto seen = ticket->generation();
//     ... try to acquire; return if won ...
//     ticket->wait_for_release(seen, until); // returns at once if a release came meanwhile
//   }
//
// A lock here is one lock of a name: its exclusive lock (plain and fair acquisitions share it),
// its read-write lock or its semaphore, each notified apart (lock_statements.h). Each release of
// a lock moves its generation on. One that frees an exclusive lock ('f') or one permit of a
// semaphore ('p') wakes one local waiter of it, in turn (one thread and one waiter without a
// thread): what was freed has one taker, and a woken waiter that loses to another client is
// woken by that client's release (a winner of an exclusive lock while others here wait marks its
// grant so that its release is told, `watched`; a permit's release is always told). A release
// of an exclusive lock with a fair queue, plain or fair, names the next waiter in line ('n'): it
// wakes the named waiter and the plain waiters of the lock, not the other fair ones. Any other
// release (a kept one, a read-write lock's, a forced one of a semaphore's permits) wakes every
// local waiter of the lock: they all ask, and learn what they may. Each LISTEN that takes hold
// moves every lock's on, since a waiter may have missed a release while nobody listened.
// A listening connection silent for a command timeout is asked an empty query, and given up for
// a new one when it does not answer within another (serve()).
// Correctness never rests on notifications alone: waiters bound every wait by the holder's ttl.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "backends/backend.h"
#include "backends/postgres/settings.h"
#include "core/stats.h"
#include "util/event_fd.h"
#include "util/steady_clock.h"

namespace distlock::detail::postgres {

class ReleaseListener {
 public:
  class Ticket;

 private:
  struct Lock {
    std::uint64_t generation = 0;
    std::condition_variable released;
    std::list<Ticket*> tickets;
  };
  using Locks = std::unordered_map<std::string, Lock>;

 public:
  using TimePoint = SteadyClock::time_point;

  // Interest in one lock's releases, for as long as it lives.
  class Ticket {
   public:
    // `on_change`, if given, is called where a waiting thread would be woken, under the
    // listener's mutex: it must only post the waiter's next step. `fair_id`: the acquisition id
    // a fair release names this waiter by (empty for the others).
    Ticket(ReleaseListener& listener, Locks::value_type& lock, std::string fair_id,
           std::function<void()> on_change);
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket();

    // Waits until the listener's LISTEN holds; false if `until` came first.
    bool wait_listening(TimePoint until) const;
    // Whether the LISTEN holds, so that every later release reaches this ticket.
    bool listening() const;
    std::uint64_t generation() const;
    // Waits until the generation differs from `seen` or `until` comes; true for the first.
    bool wait_for_release(std::uint64_t seen, TimePoint until) const;
    // For a waiter that leaves without trying again after a release may have woken it in
    // another's stead: wakes another waiter of the lock, if there is one.
    void pass_on();

   private:
    friend class ReleaseListener;

    ReleaseListener& listener_;
    Locks::value_type& lock_;
    const std::string fair_id_;
    const std::function<void()> on_change_;
    std::list<Ticket*>::iterator entry_;
    // The fair releases that woke this waiter and not every waiter of the lock: those naming it,
    // and for a waiter that is not fair, every one (under the listener's mutex).
    std::uint64_t own_wakes_ = 0;
  };

  // Starts the thread, which connects in the background. `settings` must outlive the listener.
  ReleaseListener(const PostgresSettings& settings, StatsCounters& stats);
  ReleaseListener(const ReleaseListener&) = delete;
  ReleaseListener& operator=(const ReleaseListener&) = delete;
  // Stops and joins the thread without waiting for the server.
  ~ReleaseListener();

  // Interest in the releases of the lock `hold` waits for.
  std::unique_ptr<Ticket> watch(const HoldId& hold, std::function<void()> on_change = {});
  // Whether a waiter here other than the one with the ticket `own` (null: none) watches the
  // lock `hold` is of now: a grant is then marked as waited for. Cheap while nobody waits for
  // anything.
  bool watched(const HoldId& hold, const Ticket* own) const;

 private:
  void run();
  // Listens on one connection until it fails, stops answering, or the listener stops.
  void serve();
  // A notification's payload: 'f' or 'k' and the name of an exclusive lock, 'r' and that of a
  // read-write lock, 'p' (a permit freed) or 'q' (kept, or several freed) and that of a
  // semaphore, or 'n', the acquisition id of the fair waiter next in line, a newline and the
  // name of its exclusive lock. An empty payload (a name too long for one) wakes every waiter.
  void released(std::string_view payload);
  // Under mutex_: moves `lock` on and wakes its waiters.
  void wake_locked(Lock& lock);
  // Under mutex_: moves `lock` on and wakes one waiting thread and one waiter without a thread
  // other than `passing`, the ticket that passes its wake on (if any).
  void wake_one_locked(Lock& lock, const Ticket* passing = nullptr);
  // Under mutex_: wakes the waiter of `lock` named `fair_id` and its waiters that are not fair.
  void wake_named_locked(Lock& lock, std::string_view fair_id);
  void set_listening(bool listening);

  const PostgresSettings& settings_;
  StatsCounters& stats_;
  mutable std::mutex mutex_;
  mutable std::condition_variable listening_changed_;
  bool listening_ = false;  // under mutex_
  Locks locks_;             // under mutex_
  // The tickets alive, read without the mutex by `watched`.
  std::atomic<std::size_t> tickets_ = 0;
  EventFd stop_;
  bool stopping_ = false;  // under mutex_
  std::thread thread_;
};

}  // namespace distlock::detail::postgres
