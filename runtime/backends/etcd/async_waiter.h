// SPDX-License-Identifier: Apache-2.0
// An etcd acquisition that waits without a thread (Client::acquire_async on etcd://): the
// blocking wait's protocol, each step a task on the client's executor. It enters; finding
// itself held back, it watches the deletion its standing names, which posts its next look, and
// arms a timer for its own lease's next keep-alive (made together with the other waiters':
// waiting_leases.h) and the deadline. Each step is a round trip the executor's thread waits for
// (as on ZooKeeper: one copy of the recipe). While etcd is unavailable it tries again after a
// pause, as core/ride_through.h says.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <optional>

#include "backends/backend.h"
#include "backends/etcd/contender.h"
#include "backends/etcd/deletion_watcher.h"
#include "backends/etcd/waiting_leases.h"
#include "core/async_executor.h"
#include "core/ride_through.h"
#include "core/stats.h"

namespace distlock::detail::etcd {

class AsyncWaiter final : public PendingAcquisition,
                          public std::enable_shared_from_this<AsyncWaiter> {
 public:
  // What the backend does with a contender that holds: records the hold, and makes the grant.
  using Granted = std::function<Grant(const AcquireRequest&, const Contender&, bool)>;
  // What it does with a step's failure: the error to complete with.
  using Failed = std::function<std::exception_ptr(const AcquireRequest&)>;

  // The request's names stay valid until `done` has been called (backend.h); `watcher`,
  // `waiting_leases`, `granted` and `failed` outlive the executor's tasks.
  AsyncWaiter(const AcquireRequest& request, std::unique_ptr<Contender> contender,
              DeletionWatcher& watcher, WaitingLeases& waiting_leases, const Granted& granted,
              const Failed& failed, StatsCounters& stats, AsyncExecutor& executor,
              Millis outage_limit, AcquireCompletion done);

  // Posts the first step: the caller's thread makes no round trip.
  void start();
  void withdraw(std::exception_ptr why) override;

 private:
  void step(bool entering);
  // A release (no generation) or a timer; `retrying`: the timer of a retry after an outage,
  // which tries even at the deadline.
  void woken(std::optional<std::uint64_t> timer_generation, bool retrying = false);
  // The timer of the lease's keep-alive: the standing and its watch stay as they are unless
  // the lease is gone.
  void keep_lease_alive();
  // Runs a step's round trips: true when they got through; else the waiter rides the outage
  // through (failed_step) or completes with the failure.
  template <class RoundTrips>
  bool round_trips_made(RoundTrips&& round_trips);
  // Inside the catch block of `error`, a step's failure: tries again after a pause while etcd is
  // unavailable and the policy lets (core/ride_through.h); otherwise completes with the failure.
  void failed_step(const RpcError& error);
  void arm_timer();
  void cancel_timer();
  void complete(std::optional<Grant> grant, std::exception_ptr error);

  const AcquireRequest request_;
  std::unique_ptr<Contender> contender_;
  DeletionWatcher& watcher_;
  WaitingLeases& waiting_leases_;
  const Granted& granted_;
  const Failed& failed_;
  StatsCounters& stats_;
  AsyncExecutor& executor_;
  AcquireCompletion done_;

  // Everything below is the executor thread's.
  bool finished_ = false;
  bool contended_ = false;
  // The next step enters anew: the last failed while etcd was unavailable.
  bool enter_next_ = false;
  RideThrough outage_;
  std::unique_ptr<DeletionWatcher::Ticket> ticket_;
  std::optional<AsyncExecutor::TimerId> timer_;
  std::uint64_t timer_generation_ = 0;
  // Itself, while it waits: nothing else need hold it.
  std::shared_ptr<AsyncWaiter> keep_alive_;
};

}  // namespace distlock::detail::etcd
