// SPDX-License-Identifier: Apache-2.0
// What the ZooKeeper acquisitions that wait without a thread (async_contention.h,
// async_semaphore.h) share: their steps are tasks on the client's executor, and a step that
// throws ends the acquisition; a wait ends by a watch's callback, which only posts the next
// step, or by a timer at the deadline, and a wake-up posted for an earlier wait is stale; the
// acquisition keeps itself alive from its start until its completion's task.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "backends/backend.h"
#include "backends/zookeeper/contention.h"
#include "core/async_executor.h"
#include "core/stats.h"
#include "util/steady_clock.h"

namespace distlock::detail::zookeeper {

// How an asynchronous contention ends, called once on the executor's thread: what it won
// (nullopt when the deadline passed, or with `error`), and whether it found the lock taken.
using ContentionDone = std::function<void(std::optional<Won>, bool contended, std::exception_ptr)>;

// `Derived` has round(bool first), the first step; woken(std::uint64_t generation), the step
// after a wait; failed(std::exception_ptr), told what a step threw; and
// finish(std::optional<Won>, std::exception_ptr), which ends it by complete().
template <class Derived>
class AsyncSteps : public PendingAcquisition, public std::enable_shared_from_this<Derived> {
 public:
  // Posts the first round: the caller's thread makes no round trip.
  void start() {
    keep_alive_ = this->shared_from_this();
    executor_.post(
        [self = this->shared_from_this()] { self->guarded([&] { self->round(true); }); });
  }

 protected:
  AsyncSteps(AsyncExecutor& executor, ContentionDone done)
      : executor_(executor), done_(std::move(done)) {}

  // Runs a step; what it throws goes to failed().
  template <class Step>
  void guarded(Step&& step) {
    try {
      step();
    } catch (...) {
      if (!finished_) derived().failed(std::current_exception());
    }
  }

  // What ends the current wait from a watch's callback, on the ZooKeeper client's completion
  // thread: it only posts the next step, and only while the acquisition lives.
  std::function<void()> waker() {
    return [weak = this->weak_from_this(), generation = generation_, &executor = executor_] {
      if (auto self = weak.lock())
        executor.post([self = std::move(self), generation] {
          self->guarded([&] { self->woken(generation); });
        });
    };
  }
  // The current wait begins: counted as waiting, and ended by the timer at `deadline` (if
  // any) unless a watch ends it first.
  void begin_wait(StatsCounters& stats, SteadyClock::time_point deadline) {
    counted_waiting_.emplace(stats);
    if (deadline == SteadyClock::time_point::max()) return;
    timer_ =
        executor_.post_at(deadline, [self = this->shared_from_this(), generation = generation_] {
          self->guarded([&] { self->woken(generation); });
        });
  }
  // The current wait is over: its timer goes, and its wake-ups still on their way are stale.
  void end_wait() {
    if (timer_) executor_.cancel(*timer_);
    timer_.reset();
    counted_waiting_.reset();
    ++generation_;
  }
  // Ends the acquisition when `judged` says it is over (won, or the deadline passed); whether
  // it did.
  bool ended_by(Judged& judged) {
    if (judged.next == Next::won) {
      derived().finish(std::move(judged.won), nullptr);
      return true;
    }
    if (judged.next != Next::timed_out) return false;
    derived().finish(std::nullopt, nullptr);
    return true;
  }
  // Whether a wake-up for the wait numbered `generation` comes too late to count.
  bool stale(std::uint64_t generation) const { return finished_ || generation != generation_; }
  // Ends it: `done` is posted with the outcome, the keep-alive going with that task. The error
  // moves on to the completion: no copy of it stays on this thread.
  void complete(std::optional<Won> won, bool contended, std::exception_ptr error) {
    finished_ = true;
    executor_.post([done = std::move(done_), won = std::move(won), contended,
                    error = std::move(error), self = std::move(keep_alive_)]() mutable {
      done(std::move(won), contended, std::move(error));
    });
  }

  AsyncExecutor& executor_;
  bool finished_ = false;  // the executor thread's, as everything below

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }

  ContentionDone done_;
  // Moves on whenever a wait ends: a wake-up posted for an earlier one is stale.
  std::uint64_t generation_ = 0;
  std::optional<WaitingScope> counted_waiting_;
  std::optional<AsyncExecutor::TimerId> timer_;
  std::shared_ptr<Derived> keep_alive_;
};

}  // namespace distlock::detail::zookeeper
