// SPDX-License-Identifier: Apache-2.0
#include "backends/postgres/async_waiter.h"

#include <algorithm>
#include <string>
#include <utility>

namespace distlock::detail::postgres {

AsyncWaiter::AsyncWaiter(const AcquireRequest& request, const TryOnce& try_once,
                         const Withdraw& withdraw, ReleaseListener& listener, StatsCounters& stats,
                         AsyncExecutor& executor, Millis outage_limit, AcquireCompletion done)
    : request_(request),
      try_once_(try_once),
      withdraw_(withdraw),
      listener_(listener),
      stats_(stats),
      executor_(executor),
      done_(std::move(done)),
      outage_(outage_limit) {}

void AsyncWaiter::start() {
  executor_.post([self = shared_from_this()] { self->attempt(); });
}

void AsyncWaiter::withdraw(std::exception_ptr why) {
  // On the executor: the waiter's state is that thread's, and a try is never half made there.
  executor_.post([self = shared_from_this(), why = std::move(why)] {
    if (!self->finished_) self->complete(std::nullopt, why);
  });
}

void AsyncWaiter::attempt() {
  if (finished_) return;
  cancel_timer();
  // Only a try made while the LISTEN holds is sure to hear of every later release.
  const bool heard = ticket_ && ticket_->listening();
  seen_ = ticket_ ? ticket_->generation() : 0;
  Attempt found;
  try {
    found = try_once_(request_, ticket_.get());
  } catch (const TransientUnavailable& failure) {
    const auto retry_at = outage_.next_try(request_.deadline, failure.what());
    if (!retry_at) {
      complete(std::nullopt, std::current_exception());
      return;
    }
    // The same acquisition tried again: a place it keeps in the table stays its own.
    timer_ = executor_.post_at(*retry_at, [self = shared_from_this(), armed = timer_generation_] {
      if (armed == self->timer_generation_) self->attempt();
    });
    return;
  } catch (...) {
    complete(std::nullopt, std::current_exception());
    return;
  }
  outage_.succeeded();
  if (found.grant) {
    found.grant->contended = ticket_ != nullptr;
    complete(found.grant, nullptr);
    return;
  }
  if (SteadyClock::now() >= request_.deadline) {
    complete(std::nullopt, nullptr);
    return;
  }
  if (heard && !counted_waiting_) {
    ++stats_.waiting;
    counted_waiting_ = true;
  }
  if (!ticket_) {
    ++stats_.contended;
    keep_alive_ = shared_from_this();
    // Called under the listener's mutex: only post the next step.
    ticket_ = listener_.watch(request_.hold, [this] {
      executor_.post([self = shared_from_this()] { self->woken(std::nullopt); });
    });
    // Listening already: a try now cannot miss a release. Otherwise the LISTEN taking hold
    // wakes it for that try.
    if (ticket_->listening()) {
      executor_.post([self = shared_from_this()] { self->attempt(); });
      return;
    }
  }
  arm_timer(found.retry_in_ms);
}

void AsyncWaiter::woken(std::optional<std::uint64_t> timer_generation) {
  if (finished_) return;
  if (timer_generation) {
    if (*timer_generation != timer_generation_) return;
    ++stats_.woken_by_timeout;
  } else {
    if (ticket_->generation() == seen_) return;
    ++stats_.woken_by_release;
  }
  attempt();
}

void AsyncWaiter::arm_timer(long long retry_in_ms) {
  cancel_timer();
  const auto wake_at = std::min(retry_time(retry_in_ms), request_.deadline);
  timer_ = executor_.post_at(
      wake_at, [self = shared_from_this(), armed = timer_generation_] { self->woken(armed); });
}

void AsyncWaiter::cancel_timer() {
  if (timer_) executor_.cancel(*timer_);
  timer_.reset();
  ++timer_generation_;
}

void AsyncWaiter::complete(std::optional<Grant> grant, std::exception_ptr error) {
  finished_ = true;
  cancel_timer();
  // A release since the latest try may have woken this waiter alone: another must ask.
  if (!grant && ticket_ && ticket_->generation() != seen_) ticket_->pass_on();
  ticket_.reset();
  if (!grant) withdraw_(request_);
  if (counted_waiting_) --stats_.waiting;
  executor_.post([done = std::move(done_), grant, error = std::move(error),
                  self = std::move(keep_alive_)]() mutable { done(grant, std::move(error)); });
}

}  // namespace distlock::detail::postgres
