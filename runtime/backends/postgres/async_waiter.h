// SPDX-License-Identifier: Apache-2.0
// A PostgreSQL acquisition that waits without a thread (Client::acquire_async on
// postgresql://): the blocking wait's protocol (release_listener.h), each step a task on the
// client's executor. It tries; finding the lock busy, it watches the lock's releases, whose
// notifications and the LISTEN taking hold post its next try, and arms a timer for when the
// holder's lease would run out by itself. Each try is a statement the executor's thread waits
// for; while the server is unavailable it tries again after a pause, as core/ride_through.h
// says.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>

#include "backends/backend.h"
#include "backends/postgres/attempt.h"
#include "backends/postgres/release_listener.h"
#include "core/async_executor.h"
#include "core/ride_through.h"
#include "core/stats.h"

namespace distlock::detail::postgres {

class AsyncWaiter final : public PendingAcquisition,
                          public std::enable_shared_from_this<AsyncWaiter> {
 public:
  // One try, as the blocking acquisition makes it, by the waiter with this ticket (null before it
  // watches): throws as it does.
  using TryOnce = std::function<Attempt(const AcquireRequest&, const ReleaseListener::Ticket*)>;
  // Gives the waiter's place back, as the blocking acquisition does when it leaves without the
  // lock; never throws.
  using Withdraw = std::function<void(const AcquireRequest&)>;

  // The request's names stay valid until `done` has been called (backend.h); `try_once`,
  // `withdraw` and `listener` outlive the executor's tasks. A try that fails transiently is
  // made again as core/ride_through.h says, within `outage_limit` where the request has no
  // deadline.
  AsyncWaiter(const AcquireRequest& request, const TryOnce& try_once, const Withdraw& withdraw,
              ReleaseListener& listener, StatsCounters& stats, AsyncExecutor& executor,
              Millis outage_limit, AcquireCompletion done);

  // Posts the first try: the caller's thread makes no round trip.
  void start();
  void withdraw(std::exception_ptr why) override;

 private:
  void attempt();
  void woken(std::optional<std::uint64_t> timer_generation);
  void arm_timer(long long retry_in_ms);
  void cancel_timer();
  void complete(std::optional<Grant> grant, std::exception_ptr error);

  const AcquireRequest request_;
  const TryOnce& try_once_;
  const Withdraw& withdraw_;
  ReleaseListener& listener_;
  StatsCounters& stats_;
  AsyncExecutor& executor_;
  AcquireCompletion done_;

  // Everything below is the executor thread's.
  RideThrough outage_;
  bool finished_ = false;
  bool counted_waiting_ = false;
  std::unique_ptr<ReleaseListener::Ticket> ticket_;
  // The ticket's generation when the latest try went out.
  std::uint64_t seen_ = 0;
  std::optional<AsyncExecutor::TimerId> timer_;
  std::uint64_t timer_generation_ = 0;
  // Itself, while it watches: nothing else need hold it.
  std::shared_ptr<AsyncWaiter> keep_alive_;
};

}  // namespace distlock::detail::postgres
