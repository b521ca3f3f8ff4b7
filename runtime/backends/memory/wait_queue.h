// SPDX-License-Identifier: Apache-2.0
// Callers waiting for one side of an in-process lock to change, in arrival order. Each waiter
// has a condition variable of its own, so that a release can wake the next waiter only (a fair
// lock, a semaphore's permit) or all of them (a lock that many can take at once).
#pragma once

#include <condition_variable>
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
  };

 public:
  // A caller's place in the queue, from its construction to its destruction: a waiter that
  // gives up leaves at once, and wakes nobody by leaving.
  class Place {
   public:
    explicit Place(WaitQueue& queue);
    ~Place();
    Place(const Place&) = delete;
    Place& operator=(const Place&) = delete;

    // Waits, with `lock` (the table's) released, until woken or `wake_at`; counts the wait
    // as waiting and, unless bound_waits ended it, how it ended.
    void wait(std::unique_lock<std::mutex>& lock, SteadyClock::time_point wake_at,
              StatsCounters& stats);
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
