// SPDX-License-Identifier: Apache-2.0
// A Redis acquisition that waits without a thread (Client::acquire_async on redis://,
// redis+unix:// and redis+sentinel://): the protocol of waiting.h, each step a task on the
// client's executor. It tries; finding the lock busy, it watches the lock's release channel
// (release_listener.h), whose confirmed subscription, releases and grants post its next
// step, and arms a timer for when the holder's lease would run out by itself.
//
// Each attempt is one round trip, made on the executor's thread; an outage is not ridden
// through (the acquisition fails with BackendUnavailable, as a try does).
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>

#include "backends/backend.h"
#include "backends/redis/locks/release_listener.h"
#include "backends/redis/locks/waiting.h"
#include "backends/redis/topology/redis_backend.h"
#include "core/async_executor.h"
#include "core/stats.h"

namespace distlock::detail::redis {

class AsyncWaiter final : public PendingAcquisition,
                          public std::enable_shared_from_this<AsyncWaiter> {
 public:
  // `leaves_trace`: a waiter of this kind keeps a place on the server, withdrawn when it
  // gives up. The request's names stay valid until `done` has been called (backend.h).
  AsyncWaiter(RedisBackend& backend, const AcquireRequest& request, GrantMessage grant_message,
              bool leaves_trace, StatsCounters& stats, AsyncExecutor& executor,
              AcquireCompletion done);

  // Posts the first attempt: the caller's thread makes no round trip.
  void start();
  void withdraw(std::exception_ptr why) override;

 private:
  enum class Wake { change, timer };

  void attempt();
  void woken(Wake wake, std::uint64_t timer_generation);
  void arm_timer();
  void cancel_timer();
  // Not granted: withdraws the waiter's place on the server, if its kind leaves one.
  void give_up(std::exception_ptr error);
  void complete(std::optional<Grant> grant, std::exception_ptr error);

  RedisBackend& backend_;
  const AcquireRequest request_;
  const GrantMessage grant_message_;
  const bool leaves_trace_;
  StatsCounters& stats_;
  AsyncExecutor& executor_;
  AcquireCompletion done_;

  // Everything below is the executor thread's.
  bool finished_ = false;
  std::unique_ptr<ReleaseListener::AsyncTicket> ticket_;
  // The ticket's generation when the latest attempt went out.
  std::uint64_t seen_ = 0;
  // Whether the subscription was confirmed when the latest attempt went out.
  bool heard_ = false;
  bool counted_waiting_ = false;
  long long holder_pttl_ = 0;
  SteadyClock::time_point last_sent_at_;
  std::optional<AsyncExecutor::TimerId> timer_;
  std::uint64_t timer_generation_ = 0;
  // Itself, while it watches: nothing else need hold it.
  std::shared_ptr<AsyncWaiter> keep_alive_;
};

}  // namespace distlock::detail::redis
