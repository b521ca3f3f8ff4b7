// SPDX-License-Identifier: Apache-2.0
// An in-process acquisition that waits without a thread: each attempt is a step on the
// client's executor, made when a release wakes its place in the lock's queue or when its timer
// (the hold in the way expires, or its deadline comes) fires. The same contest (contention.h)
// as a waiting thread's, so both kinds of waiter share the queues, in arrival order.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "backends/backend.h"
#include "backends/memory/lock_table.h"
#include "backends/memory/wait_queue.h"
#include "core/async_executor.h"
#include "core/stats.h"

namespace distlock::detail::memory {

class AsyncContender final : public PendingAcquisition,
                             public std::enable_shared_from_this<AsyncContender> {
 public:
  AsyncContender(std::shared_ptr<LockTable> table, const AcquireRequest& request,
                 StatsCounters& stats, AsyncExecutor& executor, AcquireCompletion done);

  // The first attempt, on the caller's thread; later ones on the executor.
  void start();
  void withdraw(std::exception_ptr why) override;

 private:
  enum class Wake { start, release, timer };

  // `timer_generation`: for Wake::timer, the generation the timer was armed in.
  void step(Wake wake, std::uint64_t timer_generation);
  void cancel_timer();
  // Leaves the queue, without a grant or with one; `lock` is the table's.
  void leave();
  // Not granted: leaves the queue, lets the next take its turn, forgets an idle name.
  void give_up(const Contest& contest, TableAccess& table);
  void complete(std::optional<Grant> grant, std::exception_ptr error);

  const std::shared_ptr<LockTable> table_;
  // The request's names, owned: the request's views point into them.
  const std::string name_;
  const std::string owner_;
  const std::string acquisition_id_;
  AcquireRequest request_;
  StatsCounters& stats_;
  AsyncExecutor& executor_;
  // Guarded by the table's mutex, as the queues are.
  AcquireCompletion done_;
  bool finished_ = false;
  std::optional<WaitQueue::Place> place_;
  // Itself, while it waits in a queue; handed to the completion's task.
  std::shared_ptr<AsyncContender> keep_alive_;
  std::optional<AsyncExecutor::TimerId> timer_;
  // Moves on whenever the timer is cancelled: a timer's step armed before is stale.
  std::uint64_t timer_generation_ = 0;
};

}  // namespace distlock::detail::memory
