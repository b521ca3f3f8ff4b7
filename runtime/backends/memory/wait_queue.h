// SPDX-License-Identifier: Apache-2.0
// Callers waiting for one side of an in-process lock to change, in arrival order. Each waiter
// has a condition variable of its own, so that a release can wake the next waiter only (a fair
// lock, a semaphore's permit) or all of them (a lock that many can take at once). A waiter
// that waits without a thread (async_contender.h) is woken by a callback instead.
#pragma once

#include <condition_variable>
#include <functional>
#include <list>
#include <mutex>

#include "core/stats.h"
#include "util/steady_clock.h"

namespace distlock::detail::memory {

class WaitQueue {
  struct Waiter {
    std::condition_variable cv;
    bool woken = false;    // by a release, since the waiter last started waiting
    bool recheck = false;  // by bound_waits, since then
    SteadyClock::time_point wake_at;
    // An asynchronous waiter's: called, with the table's mutex held, on each wake.
    std::function<void()> on_wake;
  };

 public:
  // A caller's place in the queue, from its construction to its destruction: a waiter that
  // gives up leaves at once, and wakes nobody by leaving.
  class Place {
   public:
    explicit Place(WaitQueue& queue);
    // An asynchronous waiter's place: a wake calls `on_wake` (under the table's mutex, so it
    // must only post the waiter's next attempt) instead of waking a thread.
    Place(WaitQueue& queue, std::function<void()> on_wake);
    ~Place();
    Place(const Place&) = delete;
    Place& operator=(const Place&) = delete;

    // Waits, with `lock` (the table's) released, until woken or `wake_at`; counts the wait
    // as waiting and, unless bound_waits ended it, how it ended.
    void wait(std::unique_lock<std::mutex>& lock, SteadyClock::time_point wake_at,
              StatsCounters& stats);
    // An asynchronous waiter's wait, until woken or `wake_at` (its timer).
    void expect_wake_by(SteadyClock::time_point wake_at) { waiter_->wake_at = wake_at; }
    // An asynchronous waiter's, when it attempts again: whether a release woke it since its
    // last attempt (rather than a bound or its timer). Starts a new wait.
    bool take_release_wake();
    // Whether no caller has waited longer.
    bool first() const;

   private:
    WaitQueue& queue_;
    std::list<Waiter>::iterator waiter_;
  };

  // Wakes the longest waiting caller not woken yet, if there is one.
  void wake_next();
  void wake_all();
  // Wakes, uncounted, the waiters whose wait would end after `latest`, to wait again bounded
  // by it: a new holder took the lock, and a waiter must wake when its hold expires. Their
  // waits were bounded by nothing but their deadlines (a free lock that was someone else's
  // turn), or by an earlier holder that released.
  void bound_waits(SteadyClock::time_point latest);
  bool empty() const { return waiters_.empty(); }

 private:
  static void wake(Waiter& waiter);

  std::list<Waiter> waiters_;
};

}  // namespace distlock::detail::memory
