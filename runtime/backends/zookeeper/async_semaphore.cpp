// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/async_semaphore.h"

#include <utility>

namespace distlock::detail::zookeeper {

AsyncSemaphoreContention::AsyncSemaphoreContention(const ZkContext& context,
                                                   const AcquireRequest& request, std::string path,
                                                   AsyncExecutor& executor, ContentionDone done)
    : AsyncSteps(executor, std::move(done)),
      request_(request),
      context_(context),
      semaphore_(context, request_, std::move(path)) {}

void AsyncSemaphoreContention::withdraw(std::exception_ptr why) {
  // On the executor, after any step in flight: the acquisition's state is that thread's.
  executor_.post([self = shared_from_this(), why = std::move(why)]() mutable {
    if (self->finished_) return;
    if (!self->mutex_waiter_) {
      self->finish(std::nullopt, std::move(why));
      return;
    }
    // Its completion comes next, with the mutex or without: mutex_taken ends this one there.
    self->withdrawn_ = why;
    self->mutex_waiter_->withdraw(std::move(why));
  });
}

void AsyncSemaphoreContention::round(bool first) {
  if (!first && SteadyClock::now() >= request_.deadline) {
    finish(std::nullopt, nullptr);
    return;
  }
  mutex_waiter_ = std::make_shared<AsyncContention>(
      context_, semaphore_.mutex_request(), semaphore_.mutex_path(), std::nullopt, executor_,
      [self = shared_from_this()](std::optional<Won> mutex, bool contended,
                                  std::exception_ptr error) mutable {
        self->guarded([&] { self->mutex_taken(std::move(mutex), contended, std::move(error)); });
      });
  mutex_waiter_->start();
}

void AsyncSemaphoreContention::mutex_taken(std::optional<Won> mutex, bool mutex_contended,
                                           std::exception_ptr error) {
  mutex_waiter_.reset();
  if (!mutex) {
    finish(std::nullopt, error ? std::move(error) : std::move(withdrawn_));
    return;
  }
  session_ = semaphore_.holding_mutex(*mutex, mutex_contended);
  // Released when this round ends, whatever came of it, as Curator releases it.
  if (session_) held_mutex_.emplace(context_, session_, mutex->node.node, semaphore_.deadline());
  if (withdrawn_) {
    finish(std::nullopt, std::move(withdrawn_));
    return;
  }
  if (!session_) {
    round(false);
    return;
  }
  if (!take_lease()) start_over();
}

bool AsyncSemaphoreContention::take_lease() {
  watch_leases();
  ChildrenReply listed;
  ours_ = semaphore_.create_lease(session_, watch_->id(), listed);
  if (!ours_) return false;
  // Deleted at once if we give up (a timed-out waiter must not hold a place among the N).
  lease_.emplace(context_, session_, ours_->created.path, semaphore_.deadline());
  return consider(std::move(listed));
}

bool AsyncSemaphoreContention::consider(ChildrenReply listed) {
  for (;;) {
    Judged judged = semaphore_.judge_leases(session_, *lease_, *ours_, listed);
    if (ended_by(judged)) return true;
    if (judged.next == Next::start_over) return false;
    if (judged.next == Next::wait) {
      begin_wait(context_.stats, request_.deadline);
      return true;
    }
    stop_waiting();
    watch_leases();
    listed = semaphore_.list_leases(session_, watch_->id());
  }
}

void AsyncSemaphoreContention::watch_leases() { watch_.emplace(session_, waker()); }

void AsyncSemaphoreContention::woken(std::uint64_t generation) {
  if (stale(generation)) return;
  // Cause none: the deadline's timer ended the wait, as a waiting thread's timed wait ends.
  semaphore_.count_wake(watch_->wakeup().cause());
  stop_waiting();
  watch_leases();
  if (!consider(semaphore_.list_leases(session_, watch_->id()))) start_over();
}

void AsyncSemaphoreContention::start_over() {
  stop_waiting();
  lease_.reset();
  ours_.reset();
  held_mutex_.reset();
  round(false);
}

void AsyncSemaphoreContention::stop_waiting() {
  watch_.reset();
  end_wait();
}

void AsyncSemaphoreContention::finish(std::optional<Won> won, std::exception_ptr error) {
  finished_ = true;
  stop_waiting();
  // A lease not won goes first, then the mutex, as the blocking acquisition's scopes end.
  lease_.reset();
  held_mutex_.reset();
  withdrawn_ = nullptr;
  complete(std::move(won), semaphore_.contended(), std::move(error));
}

}  // namespace distlock::detail::zookeeper
