// SPDX-License-Identifier: Apache-2.0
#include "backends/memory/async_contender.h"

#include <algorithm>
#include <utility>

namespace distlock::detail::memory {

AsyncContender::AsyncContender(std::shared_ptr<LockTable> table, const AcquireRequest& request,
                               StatsCounters& stats, AsyncExecutor& executor,
                               AcquireCompletion done)
    : table_(std::move(table)),
      name_(request.hold.name),
      owner_(request.hold.owner),
      acquisition_id_(request.hold.acquisition_id),
      request_(request),
      stats_(stats),
      executor_(executor),
      done_(std::move(done)) {
  request_.hold.name = name_;
  request_.hold.owner = owner_;
  request_.hold.acquisition_id = acquisition_id_;
}

void AsyncContender::start() { step(Wake::start, 0); }

void AsyncContender::step(Wake wake, std::uint64_t timer_generation) {
  std::unique_lock lock(table_->mutex_);
  if (finished_) return;
  // A timer that fired as a release's step re-armed it has nothing to say.
  if (wake == Wake::timer && timer_generation != timer_generation_) return;
  cancel_timer();
  TableAccess table{lock, table_->last_fence_, stats_};
  const Contest contest = table_->locks_[name_].contest(request_);
  if (place_) {
    if (place_->take_release_wake())
      ++stats_.woken_by_release;
    else if (wake == Wake::timer)
      ++stats_.woken_by_timeout;
  }
  const auto now = SteadyClock::now();
  Attempt found = contest.attempt(table, now, place_ ? &*place_ : nullptr);
  if (found.grant) {
    if (place_) found.grant->contended = true;
    leave();
    complete(found.grant, nullptr);
    return;
  }
  if (now >= request_.deadline) {
    give_up(contest, table);
    complete(std::nullopt, nullptr);
    return;
  }
  if (!place_) {
    ++stats_.contended;
    ++stats_.waiting;
    // Nothing else may hold it while it waits: a caller that keeps no handle, no timer.
    keep_alive_ = shared_from_this();
    // Under the table's mutex: only post the next attempt.
    place_.emplace(contest.queue, [this] {
      executor_.post([self = shared_from_this()] { self->step(Wake::release, 0); });
    });
  }
  const auto wake_at = std::min(found.busy_until, request_.deadline);
  place_->expect_wake_by(wake_at);
  if (wake_at != SteadyClock::time_point::max()) {
    timer_ = executor_.post_at(wake_at, [self = shared_from_this(), armed = timer_generation_] {
      self->step(Wake::timer, armed);
    });
  }
}

void AsyncContender::withdraw(std::exception_ptr why) {
  std::unique_lock lock(table_->mutex_);
  if (finished_) return;
  cancel_timer();
  TableAccess table{lock, table_->last_fence_, stats_};
  give_up(table_->locks_[name_].contest(request_), table);
  complete(std::nullopt, std::move(why));
}

void AsyncContender::cancel_timer() {
  if (timer_) executor_.cancel(*timer_);
  timer_.reset();
  ++timer_generation_;
}

void AsyncContender::leave() {
  if (!place_) return;
  place_.reset();
  --stats_.waiting;
}

void AsyncContender::give_up(const Contest& contest, TableAccess& table) {
  leave();
  contest.gave_up(table);
  table_->forget_if_idle(name_, SteadyClock::now());
}

void AsyncContender::complete(std::optional<Grant> grant, std::exception_ptr error) {
  finished_ = true;
  // Its last reference may go with the task, after the caller's step has let go of the table.
  // The error moves on to the handler: no copy of it stays on this thread.
  executor_.post([done = std::move(done_), grant, error = std::move(error),
                  self = std::move(keep_alive_)]() mutable { done(grant, std::move(error)); });
}

}  // namespace distlock::detail::memory
