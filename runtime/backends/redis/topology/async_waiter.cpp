// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/topology/async_waiter.h"

#include <algorithm>
#include <utility>

namespace distlock::detail::redis {

AsyncWaiter::AsyncWaiter(const AcquireRequest& request, Unheard unheard, GrantMessage grant_message,
                         const AsyncWaitSteps& steps, StatsCounters& stats, AsyncExecutor& executor,
                         Millis outage_limit, AcquireCompletion done)
    : request_(request),
      unheard_(unheard),
      grant_message_(grant_message),
      steps_(steps),
      stats_(stats),
      executor_(executor),
      done_(std::move(done)),
      outage_(outage_limit) {}

AsyncWaitSteps::TryOnce AsyncWaitSteps::waiting_for_reply(
    std::function<Attempt(const AcquireRequest&)> try_once) {
  return [try_once = std::move(try_once)](const AcquireRequest& request, AsyncExecutor&,
                                          const Tried& tried) {
    Attempt found;
    try {
      found = try_once(request);
    } catch (...) {
      tried({}, std::current_exception());
      return;
    }
    tried(found, nullptr);
  };
}

void AsyncWaiter::start() {
  executor_.post([self = shared_from_this()] { self->attempt(); });
}

void AsyncWaiter::withdraw(std::exception_ptr why) {
  // On the executor: the waiter's state is that thread's.
  executor_.post([self = shared_from_this(), why = std::move(why)] {
    if (self->finished_) return;
    if (self->in_flight_) {
      self->withdrawn_ = true;
      self->withdrawal_ = why;
    } else {
      self->give_up(why);
    }
  });
}

void AsyncWaiter::attempt() {
  if (finished_ || in_flight_) return;
  cancel_timer();
  awaiting_subscription_ = false;
  // Only an attempt made after the server confirmed the subscription is sure to hear of every
  // later release (release_listener.h); one made before is bounded by the holder's ttl alone.
  heard_ = ticket_ && ticket_->subscribed();
  seen_ = ticket_ ? ticket_->generation() : 0;
  in_flight_ = true;
  steps_.try_once(request_, executor_,
                  [self = shared_from_this()](Attempt found, const std::exception_ptr& error) {
                    self->tried(found, error);
                  });
}

void AsyncWaiter::tried(Attempt found, const std::exception_ptr& error) {
  in_flight_ = false;
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const Redirected&) {
      // A Cluster goes on with this acquisition on the master named, where its trace moved too.
      complete(std::nullopt, error);
    } catch (const TryAgain&) {
      complete(std::nullopt, error);
    } catch (const TransientUnavailable& failure) {
      ride_through(failure, error);
    } catch (...) {
      give_up(error);
    }
    return;
  }
  outage_.succeeded();
  if (found.grant) {
    // A withdrawal that came meanwhile was too late: the grant is the acquisition's outcome.
    found.grant->contended = ticket_ != nullptr;
    complete(found.grant, nullptr);
    return;
  }
  if (withdrawn_) {
    give_up(withdrawal_);
    return;
  }
  if (SteadyClock::now() >= request_.deadline) {
    give_up(nullptr);
    return;
  }
  holder_pttl_ = found.holder_pttl;
  last_sent_at_ = found.sent_at;
  if (heard_ && !counted_waiting_) {
    // Counted as waiting once subscribed, as a waiting thread is: the next release is heard.
    ++stats_.waiting;
    counted_waiting_ = true;
  }
  if (!ticket_) {
    ++stats_.contended;
    keep_alive_ = shared_from_this();
    watch();
    return;
  }
  arm_timer();
  // A release or the subscription's confirmation that came while the attempt was out woke
  // nobody: it is seen now.
  if (ticket_->generation() != seen_) woken(Wake::change, 0);
}

void AsyncWaiter::ride_through(const TransientUnavailable& failure,
                               const std::exception_ptr& error) {
  if (withdrawn_) {
    give_up(withdrawal_);
    return;
  }
  const auto retry_at = outage_.next_try(request_.deadline, failure.what());
  if (!retry_at) {
    give_up(error);
    return;
  }
  // The same acquisition tried again: a place it keeps on the server stays its own.
  cancel_timer();
  timer_ = executor_.post_at(*retry_at, [self = shared_from_this(), armed = timer_generation_] {
    if (armed == self->timer_generation_) self->attempt();
  });
}

void AsyncWaiter::watch() {
  cancel_timer();
  try {
    // Called under the listener's mutex: only post the next step.
    ticket_ = steps_.watch(request_.hold, [this] {
      executor_.post([self = shared_from_this()] { self->woken(Wake::change, 0); });
    });
  } catch (...) {
    give_up(std::current_exception());
    return;
  }
  seen_ = ticket_->generation();
  heard_ = false;
  awaiting_subscription_ = true;
  // Subscribed already (another waiter of this client watches the lock): an attempt now
  // cannot miss a release. Otherwise the confirmation wakes it for that attempt.
  if (ticket_->subscribed()) {
    executor_.post([self = shared_from_this()] { self->attempt(); });
    return;
  }
  arm_timer();
}

void AsyncWaiter::woken(Wake wake, std::uint64_t timer_generation) {
  if (finished_ || in_flight_) return;
  if (wake == Wake::timer) {
    if (timer_generation != timer_generation_) return;
    ++stats_.woken_by_timeout;
  } else if (ticket_->generation() != seen_) {
    // Counted only when subscribed since the last attempt: not the confirmation's own wake.
    if (heard_) ++stats_.woken_by_release;
    if (grant_message_ == GrantMessage::taken)
      if (const auto granted = ticket_->granted();
          granted && granted->attempt == attempt_token(last_sent_at_)) {
        complete(Grant{granted->fence, last_sent_at_, true}, nullptr);
        return;
      }
  } else if (lost_subscription()) {
    // Its wait ended without a release, as a waiting thread counts it.
    ++stats_.woken_by_timeout;
  } else {
    // A lost subscription wakes every waiter; one that waits for it to come back waits for
    // the holder's ttl as before.
    return;
  }
  // Unheard, a waiter that watches elsewhere listens again before it tries again: the server
  // it listened through may be down, and a holder that takes the lock again at once could
  // keep it out for its whole wait.
  if (unheard_ == Unheard::watch_elsewhere && !awaiting_subscription_ && !ticket_->subscribed()) {
    ticket_.reset();
    watch();
    return;
  }
  attempt();
}

bool AsyncWaiter::lost_subscription() const {
  return unheard_ == Unheard::watch_elsewhere && heard_ && !ticket_->subscribed();
}

void AsyncWaiter::arm_timer() {
  cancel_timer();
  auto wake_at = std::min(holder_gone(holder_pttl_, request_.ttl), request_.deadline);
  if (unheard_ == Unheard::watch_elsewhere && !heard_)
    wake_at = std::min(wake_at, SteadyClock::now() + kUnheardRetry);
  timer_ = executor_.post_at(wake_at, [self = shared_from_this(), armed = timer_generation_] {
    self->woken(Wake::timer, armed);
  });
}

void AsyncWaiter::cancel_timer() {
  if (timer_) executor_.cancel(*timer_);
  timer_.reset();
  ++timer_generation_;
}

void AsyncWaiter::give_up(std::exception_ptr error) {
  // The place it kept (or a grant a release made to it meanwhile) would otherwise hold the
  // others back for its ttl.
  if (steps_.withdraw) steps_.withdraw(request_.hold);
  complete(std::nullopt, std::move(error));
}

void AsyncWaiter::complete(std::optional<Grant> grant, std::exception_ptr error) {
  finished_ = true;
  cancel_timer();
  // A release since the latest attempt may have woken this waiter alone: another must ask.
  if (!grant && ticket_ && ticket_->generation() != seen_) ticket_->pass_on();
  ticket_.reset();
  if (counted_waiting_) --stats_.waiting;
  executor_.post([done = std::move(done_), grant, error = std::move(error),
                  self = std::move(keep_alive_)]() mutable { done(grant, std::move(error)); });
}

}  // namespace distlock::detail::redis
