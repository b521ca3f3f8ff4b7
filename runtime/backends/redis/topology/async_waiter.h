// SPDX-License-Identifier: Apache-2.0
// A Redis acquisition that waits without a thread (Client::acquire_async on redis://,
// redis+unix://, redis+sentinel:// and Redlock): the protocol of waiting.h, each step a task on
// the client's executor. It tries; finding the lock busy, it watches the lock's release channel
// (release_listener.h), whose confirmed subscription, releases and grants post its next step,
// and arms a timer for when the holder's lease would run out by itself. Where the waiter watches
// elsewhere while unheard (a Redlock quorum), a lost subscription or the short retry timer
// makes it watch again, through whichever server the steps pick then.
//
// Each attempt is one round trip. On the connection the lock commands share, the executor's
// thread writes it and goes on with the other steps queued meanwhile, and one read takes in the
// replies of all of them (attempt_pipeline.h); elsewhere (a pooled connection, each master of
// Redlock) the thread waits for the reply. An outage is not ridden through (the acquisition
// fails with BackendUnavailable, as a try does). A Cluster's MOVED, ASK or TRYAGAIN ends it with
// Redirected or TryAgain, for the cluster to go on elsewhere.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>

#include "backends/backend.h"
#include "backends/redis/locks/release_listener.h"
#include "backends/redis/topology/redis_backend.h"
#include "backends/redis/topology/waiting.h"
#include "backends/redis/transport/server_error.h"
#include "core/async_executor.h"
#include "core/ride_through.h"
#include "core/stats.h"

namespace distlock::detail::redis {

// What an AsyncWaiter does on the server (or servers) it waits on: the steps wait_for_grant
// is given to a waiting thread. A backend's, the same for all its waiters.
struct AsyncWaitSteps {
  using TryOnce = std::function<void(const AcquireRequest&, AsyncExecutor&, Tried)>;
  // A TryOnce made of a try that waits for its reply on the executor's thread.
  static TryOnce waiting_for_reply(std::function<Attempt(const AcquireRequest&)> try_once);

  // One try at the lock, never waiting for the lock: it gives what it came to on the
  // executor's thread, at once or once the reply is read.
  TryOnce try_once;
  // A ticket for the lock's release notifications; `on_change` wakes the waiter.
  std::function<std::unique_ptr<ReleaseListener::AsyncTicket>(const HoldId&,
                                                              std::function<void()> on_change)>
      watch;
  // Takes back the place a waiter of the hold's lock kind keeps on the server (a fair
  // waiter's, a writer's mark) once it gives up, if that kind keeps one; empty where no waiter
  // keeps any. Never throws.
  std::function<void(const HoldId&)> withdraw;
};

class AsyncWaiter final : public PendingAcquisition,
                          public std::enable_shared_from_this<AsyncWaiter> {
 public:
  // The request's names stay valid until `done` has been called (backend.h); `steps` outlive
  // the executor's tasks. An attempt that fails transiently is made again as
  // core/ride_through.h says, within `outage_limit` where the request has no deadline.
  AsyncWaiter(const AcquireRequest& request, Unheard unheard, GrantMessage grant_message,
              const AsyncWaitSteps& steps, StatsCounters& stats, AsyncExecutor& executor,
              Millis outage_limit, AcquireCompletion done);

  // Posts the first attempt: the caller's thread makes no round trip.
  void start();
  void withdraw(std::exception_ptr why) override;

 private:
  enum class Wake { change, timer };

  void attempt();
  void tried(Attempt found, const std::exception_ptr& error);
  // The attempt failed with `failure` (`error`): tried again after a pause while the policy
  // lets, else given up.
  void ride_through(const TransientUnavailable& failure, const std::exception_ptr& error);
  void woken(Wake wake, std::uint64_t timer_generation);
  // Watches the lock's releases with a new ticket; the next attempt comes when the server
  // confirms the subscription, or by the timer.
  void watch();
  // Whether a change that moved nothing on is the loss of the subscription a waiter that
  // watches elsewhere (Unheard::watch_elsewhere) was listening through.
  bool lost_subscription() const;
  void arm_timer();
  void cancel_timer();
  // Not granted: withdraws the waiter's place on the server, if its kind leaves one.
  void give_up(std::exception_ptr error);
  void complete(std::optional<Grant> grant, std::exception_ptr error);

  const AcquireRequest request_;
  const Unheard unheard_;
  const GrantMessage grant_message_;
  const AsyncWaitSteps& steps_;
  StatsCounters& stats_;
  AsyncExecutor& executor_;
  AcquireCompletion done_;

  // Everything below is the executor thread's.
  RideThrough outage_;
  bool finished_ = false;
  // An attempt went out and what it came to is not known yet: wakes meanwhile are seen after
  // it, and a withdrawal waits for it (its grant would otherwise be lost).
  bool in_flight_ = false;
  bool withdrawn_ = false;
  // Whether the subscription was confirmed when the latest attempt went out.
  bool heard_ = false;
  // The ticket is new and no attempt has been made since: the next wake is for an attempt.
  bool awaiting_subscription_ = false;
  bool counted_waiting_ = false;
  // Why it was withdrawn (nullptr: its caller gave up without an error).
  std::exception_ptr withdrawal_;
  std::unique_ptr<ReleaseListener::AsyncTicket> ticket_;
  // The ticket's generation when the latest attempt went out.
  std::uint64_t seen_ = 0;
  long long holder_pttl_ = 0;
  SteadyClock::time_point last_sent_at_;
  std::optional<AsyncExecutor::TimerId> timer_;
  std::uint64_t timer_generation_ = 0;
  // Itself, while it watches: nothing else need hold it.
  std::shared_ptr<AsyncWaiter> keep_alive_;
};

}  // namespace distlock::detail::redis
