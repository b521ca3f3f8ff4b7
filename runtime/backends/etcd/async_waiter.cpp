// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/async_waiter.h"

#include <algorithm>
#include <string>
#include <utility>

namespace distlock::detail::etcd {
namespace {

std::string message_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

AsyncWaiter::AsyncWaiter(const AcquireRequest& request, std::unique_ptr<Contender> contender,
                         DeletionWatcher& watcher, WaitingLeases& waiting_leases,
                         const Granted& granted, const Failed& failed, StatsCounters& stats,
                         AsyncExecutor& executor, Millis outage_limit, AcquireCompletion done)
    : request_(request),
      contender_(std::move(contender)),
      watcher_(watcher),
      waiting_leases_(waiting_leases),
      granted_(granted),
      failed_(failed),
      stats_(stats),
      executor_(executor),
      done_(std::move(done)),
      outage_(outage_limit) {}

void AsyncWaiter::start() {
  executor_.post([self = shared_from_this()] { self->step(true); });
}

void AsyncWaiter::withdraw(std::exception_ptr why) {
  // On the executor: the waiter's state is that thread's, and a step is never half made there.
  executor_.post([self = shared_from_this(), why = std::move(why)] {
    if (self->finished_) return;
    self->contender_->leave();
    self->complete(std::nullopt, why);
  });
}

template <class RoundTrips>
bool AsyncWaiter::round_trips_made(RoundTrips&& round_trips) {
  try {
    round_trips();
  } catch (const RpcError& error) {
    failed_step(error);
    return false;
  } catch (...) {
    contender_->leave();
    complete(std::nullopt, failed_(request_));
    return false;
  }
  outage_.succeeded();
  return true;
}

void AsyncWaiter::step(bool entering) {
  if (finished_) return;
  cancel_timer();
  ticket_.reset();
  Standing standing;
  const bool made = round_trips_made([&] {
    if (entering) contender_->leave();
    standing = entering ? contender_->enter() : contender_->look();
    if (standing.gone) {
      contender_->leave();
      standing = contender_->enter();
    }
  });
  if (!made) return;
  if (standing.holds) {
    complete(granted_(request_, *contender_, contended_), nullptr);
    return;
  }
  if (SteadyClock::now() >= request_.deadline) {
    contender_->leave();
    complete(std::nullopt, nullptr);
    return;
  }
  if (!contended_) {
    contended_ = true;
    ++stats_.contended;
    ++stats_.waiting;
    keep_alive_ = shared_from_this();
    waiting_leases_.enlist(*contender_);
  }
  // Called under the watcher's mutex: only post the next step.
  ticket_ = watcher_.watch(*standing.wait_for, standing.listed_at + 1, [this] {
    executor_.post([self = shared_from_this()] { self->woken(std::nullopt); });
  });
  arm_timer();
}

void AsyncWaiter::woken(std::optional<std::uint64_t> timer_generation, bool retrying) {
  if (finished_) return;
  if (timer_generation) {
    if (*timer_generation != timer_generation_) return;
    if (!retrying) {
      if (SteadyClock::now() >= request_.deadline) {
        contender_->leave();
        complete(std::nullopt, nullptr);
      } else {
        keep_lease_alive();
      }
      return;
    }
  } else {
    if (!ticket_) return;
    ++stats_.woken_by_release;
  }
  step(std::exchange(enter_next_, false));
}

void AsyncWaiter::keep_lease_alive() {
  // Kept alive meanwhile with another waiter's lease: not due yet.
  if (SteadyClock::now() < contender_->keep_alive_due()) {
    arm_timer();
    return;
  }
  bool alive = false;
  if (!round_trips_made([&] { alive = waiting_leases_.keep_alive(*contender_); })) return;
  if (alive) {
    arm_timer();
    return;
  }
  step(true);
}

void AsyncWaiter::failed_step(const RpcError& error) {
  cancel_timer();
  ticket_.reset();
  contender_->leave();
  std::exception_ptr failure = failed_(request_);
  const auto retry_at =
      error.transient() ? outage_.next_try(request_.deadline, message_of(failure)) : std::nullopt;
  if (!retry_at) {
    complete(std::nullopt, std::move(failure));
    return;
  }
  // Entered again after the pause, the last time at the deadline.
  enter_next_ = true;
  timer_ = executor_.post_at(*retry_at, [self = shared_from_this(), armed = timer_generation_] {
    self->woken(armed, true);
  });
}

void AsyncWaiter::arm_timer() {
  cancel_timer();
  const auto wake_at = std::min(contender_->keep_alive_due(), request_.deadline);
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
  ticket_.reset();
  if (contended_) {
    --stats_.waiting;
    waiting_leases_.discharge(*contender_);
  }
  executor_.post([done = std::move(done_), grant, error = std::move(error),
                  self = std::move(keep_alive_)]() mutable { done(grant, std::move(error)); });
}

}  // namespace distlock::detail::etcd
