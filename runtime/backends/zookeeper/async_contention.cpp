// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/async_contention.h"

#include <utility>

namespace distlock::detail::zookeeper {

AsyncContention::AsyncContention(const ZkContext& context, const AcquireRequest& request,
                                 std::string path, std::optional<HeldNode> write_hold,
                                 AsyncExecutor& executor, ContentionDone done)
    : AsyncSteps(executor, std::move(done)),
      request_(request),
      context_(context),
      contention_(context, request_, std::move(path), std::move(write_hold),
                  AcquisitionDeadline(request_.deadline)) {}

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
    own_.emplace(context_, session_, entered_->path, contention_.deadline());
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
    if (ended_by(judged)) return true;
    if (judged.next == Next::start_over) return false;
    if (judged.next == Next::list_again) continue;
    WaitBehind wait = contention_.wait_behind(session_, judged.watch, waker());
    if (wait.sent == ZOK) {
      waiting_on_ = std::move(wait);
      begin_wait(context_.stats, request_.deadline);
      return true;
    }
    // Refused before it went out: no callback comes.
    session_->remove_watch(wait.watch_id);
    end_wait();
    if (contention_.after_wait(session_, *own_, wait, Wakeup::Cause::watch_failed, wait.sent, false,
                               next) == Next::start_over)
      return false;
  }
}

void AsyncContention::woken(std::uint64_t generation) {
  if (stale(generation)) return;
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
  if (waiting_on_) session_->remove_watch(waiting_on_->watch_id);
  waiting_on_.reset();
  end_wait();
}

void AsyncContention::finish(std::optional<Won> won, std::exception_ptr error) {
  stop_waiting();
  // A node not won goes now: a waiter that gave up keeps no place in the queue.
  own_.reset();
  complete(std::move(won), contention_.contended(), std::move(error));
}

}  // namespace distlock::detail::zookeeper
