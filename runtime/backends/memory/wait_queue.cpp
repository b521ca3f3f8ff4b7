// SPDX-License-Identifier: Apache-2.0
#include "backends/memory/wait_queue.h"

#include <algorithm>

namespace distlock::detail::memory {

WaitQueue::Place::Place(WaitQueue& queue)
    : queue_(queue), waiter_(queue.waiters_.emplace(queue.waiters_.end())) {}

WaitQueue::Place::Place(WaitQueue& queue, std::function<void()> on_wake) : Place(queue) {
  waiter_->on_wake = std::move(on_wake);
}

WaitQueue::Place::~Place() { queue_.waiters_.erase(waiter_); }

void WaitQueue::Place::wait(std::unique_lock<std::mutex>& lock, SteadyClock::time_point wake_at,
                            StatsCounters& stats) {
  Waiter& waiter = *waiter_;
  waiter.wake_at = wake_at;
  {
    WaitingScope waiting(stats);
    // A spurious wake-up is no release: the predicate keeps it waiting.
    waiter.cv.wait_until(lock, wake_at, [&] { return waiter.woken || waiter.recheck; });
  }
  if (waiter.woken)
    ++stats.woken_by_release;
  else if (!waiter.recheck)
    ++stats.woken_by_timeout;
  waiter.woken = false;
  waiter.recheck = false;
}

bool WaitQueue::Place::take_release_wake() {
  const bool woken = waiter_->woken;
  waiter_->woken = false;
  waiter_->recheck = false;
  return woken;
}

bool WaitQueue::Place::first() const { return waiter_ == queue_.waiters_.begin(); }

void WaitQueue::wake(Waiter& waiter) {
  waiter.woken = true;
  if (waiter.on_wake)
    waiter.on_wake();
  else
    waiter.cv.notify_one();
}

void WaitQueue::wake_next() {
  const auto next =
      std::find_if(waiters_.begin(), waiters_.end(), [](const Waiter& w) { return !w.woken; });
  if (next != waiters_.end()) wake(*next);
}

void WaitQueue::wake_all() {
  for (Waiter& waiter : waiters_) wake(waiter);
}

void WaitQueue::bound_waits(SteadyClock::time_point latest) {
  for (Waiter& waiter : waiters_) {
    if (waiter.wake_at <= latest) continue;
    waiter.recheck = true;
    if (waiter.on_wake)
      waiter.on_wake();
    else
      waiter.cv.notify_one();
  }
}

}  // namespace distlock::detail::memory
