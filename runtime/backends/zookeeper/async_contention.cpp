// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/async_contention.h"

#include <utility>

#include "backends/zookeeper/status.h"

namespace distlock::detail::zookeeper {

AsyncContention::AsyncContention(const ZkContext& context, const AcquireRequest& request,
                                 std::string path, std::optional<HeldNode> write_hold,
                                 AsyncExecutor& executor, ContentionDone done)
    : AsyncSteps(executor, std::move(done)),
      request_(request),
      context_(context),
      contention_(context, request_, std::move(path), std::move(write_hold),
                  AcquisitionDeadline(request_.deadline)),
      outage_(context.settings.outage_limit) {}

void AsyncContention::withdraw(std::exception_ptr why) {
  // On the executor, after any step in flight: the acquisition's state is that thread's.
  executor_.post([self = shared_from_this(), why = std::move(why)]() mutable {
    if (!self->finished_) self->finish(std::nullopt, std::move(why));
  });
}

void AsyncContention::round(bool first) {
  for (;; first = false) {
    own_.reset();
    // First: a wait that ends while the session is away ends as unavailable, not as timed out.
    if (!session_ready_now()) return;
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

bool AsyncContention::session_ready_now() {
  next_round_.reset();
  if (context_.keeper.ready(SteadyClock::now())) {
    outage_.succeeded();
    return true;
  }
  const auto current = context_.keeper.current();
  const BackendUnavailable failure = status::unavailable(
      request_.hold.name, context_.settings.server,
      current && current->auth_failed() ? current->auth_error() : "not connected to ZooKeeper");
  if (!ride_through(failure)) throw failure;
  return false;
}

void AsyncContention::failed(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const BackendUnavailable& failure) {
    if (!context_.keeper.ready(SteadyClock::now()) && ride_through(failure)) return;
  } catch (...) {
    // Not the outage's: it ends the acquisition.
  }
  finish(std::nullopt, std::move(error));
}

bool AsyncContention::ride_through(const BackendUnavailable& failure) {
  const auto current = context_.keeper.current();
  if (current && current->auth_failed()) return false;
  const auto retry_at = outage_.next_try(request_.deadline, failure.what());
  if (!retry_at) return false;
  stop_waiting();
  next_round_ = executor_.post_at(*retry_at, [self = shared_from_this()] {
    if (!self->finished_) self->guarded([&] { self->round(false); });
  });
  return true;
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
  if (next_round_) executor_.cancel(*next_round_);
  next_round_.reset();
  // A node not won goes now: a waiter that gave up keeps no place in the queue.
  own_.reset();
  complete(std::move(won), contention_.contended(), std::move(error));
}

}  // namespace distlock::detail::zookeeper
