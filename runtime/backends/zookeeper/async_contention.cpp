// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/async_contention.h"

#include <utility>

namespace distlock::detail::zookeeper {

AsyncContention::AsyncContention(const ZkContext& context, const AcquireRequest& request,
                                 std::string path, std::optional<HeldNode> write_hold,
                                 AsyncExecutor& executor, ContentionDone done)
    : request_(request),
      context_(context),
      contention_(context, request_, std::move(path), std::move(write_hold)),
      executor_(executor),
      done_(std::move(done)) {}

template <class Step>
void AsyncContention::guarded(Step&& step) {
  try {
    step();
  } catch (...) {
    if (!finished_) finish(std::nullopt, std::current_exception());
  }
}

void AsyncContention::start() {
  keep_alive_ = shared_from_this();
  executor_.post([self = shared_from_this()] { self->guarded([&] { self->round(true); }); });
}

void AsyncContention::withdraw(std::exception_ptr why) {
  // On the executor, after any step in flight: the acquisition's state is that thread's.
  executor_.post([self = shared_from_this(), why = std::move(why)]() mutable {
    if (!self->finished_) self->finish(std::nullopt, std::move(why));
  });
}

void AsyncContention::round(bool first) {
  for (;; first = false) {
    own_.reset();
    if (!first && SteadyClock::now() >= request_.deadline) {
      finish(std::nullopt, nullptr);
      return;
    }
    session_ = contention_.begin_round();
    entered_ = contention_.enter(session_);
    if (!entered_) continue;
    own_.emplace(context_, session_, entered_->path);
    if (auto won = contention_.downgraded(session_, *own_, *entered_)) {
      finish(std::move(won), nullptr);
      return;
    }
    if (consider(std::exchange(entered_->listed, std::nullopt))) return;
  }
}

bool AsyncContention::consider(std::optional<ChildrenReply> next) {
  for (;;) {
    const ChildrenReply listed = next ? std::move(*next) : contention_.list(session_);
    next.reset();
    Judged judged = contention_.judge_listing(session_, *own_, *entered_, listed);
    switch (judged.next) {
      case Next::won:
        finish(std::move(judged.won), nullptr);
        return true;
      case Next::timed_out:
        finish(std::nullopt, nullptr);
        return true;
      case Next::start_over:
        return false;
      case Next::list_again:
        continue;
      case Next::wait:
        break;
    }
    // Called where the wakeup is notified (the completion thread, mostly): it only posts.
    auto on_woken = [weak = weak_from_this(), generation = generation_, &executor = executor_] {
      if (auto self = weak.lock())
        executor.post([self = std::move(self), generation] {
          self->guarded([&] { self->woken(generation); });
        });
    };
    WaitBehind wait = contention_.wait_behind(session_, judged.watch, std::move(on_woken));
    if (wait.sent == ZOK) {
      begin_waiting(std::move(wait));
      return true;
    }
    // Refused before it went out: no callback comes.
    session_->remove_watch(wait.watch_id);
    ++generation_;
    if (contention_.after_wait(session_, *own_, wait, Wakeup::Cause::watch_failed, wait.sent, false,
                               next) == Next::start_over)
      return false;
  }
}

void AsyncContention::begin_waiting(WaitBehind wait) {
  waiting_on_ = std::move(wait);
  counted_waiting_.emplace(context_.stats);
  if (request_.deadline == SteadyClock::time_point::max()) return;
  timer_ =
      executor_.post_at(request_.deadline, [self = shared_from_this(), generation = generation_] {
        self->guarded([&] { self->woken(generation); });
      });
}

void AsyncContention::woken(std::uint64_t generation) {
  if (finished_ || generation != generation_) return;
  // Cause none: the deadline's timer ended the wait, as a waiting thread's timed wait ends.
  const Wakeup::Cause cause = waiting_on_->wakeup->cause();
  const int failure = waiting_on_->wakeup->failure();
  const WaitBehind wait = *waiting_on_;
  stop_waiting();
  std::optional<ChildrenReply> next;
  if (contention_.after_wait(session_, *own_, wait, cause, failure, true, next) ==
          Next::start_over ||
      !consider(std::move(next)))
    round(false);
}

void AsyncContention::stop_waiting() {
  if (timer_) executor_.cancel(*timer_);
  timer_.reset();
  if (waiting_on_) session_->remove_watch(waiting_on_->watch_id);
  waiting_on_.reset();
  counted_waiting_.reset();
  ++generation_;
}

void AsyncContention::finish(std::optional<Won> won, std::exception_ptr error) {
  finished_ = true;
  stop_waiting();
  // A node not won goes now: a waiter that gave up keeps no place in the queue.
  own_.reset();
  // The error moves on to the completion: no copy of it stays on this thread.
  executor_.post([done = std::move(done_), won = std::move(won),
                  contended = contention_.contended(), error = std::move(error),
                  self = std::move(keep_alive_)]() mutable {
    done(std::move(won), contended, std::move(error));
  });
}

}  // namespace distlock::detail::zookeeper
