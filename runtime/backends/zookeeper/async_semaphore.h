// SPDX-License-Identifier: Apache-2.0
// A ZooKeeper permit acquisition that waits without a thread (Client::acquire_async on
// zookeeper:// with permits(N)): the steps of semaphore.h, each a task on the client's
// executor. It takes the semaphore's mutex as an asynchronous lock acquisition
// (async_contention.h); holding it, it adds its lease node and, while there are too many,
// waits for the watch on the leases (whose callback posts the next step) or for the timer at
// its deadline. Its round trips are made on the executor's thread, as the lock's are.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "backends/backend.h"
#include "backends/zookeeper/async_contention.h"
#include "backends/zookeeper/async_steps.h"
#include "backends/zookeeper/context.h"
#include "backends/zookeeper/own_node.h"
#include "backends/zookeeper/semaphore.h"
#include "core/async_executor.h"
#include "core/stats.h"

namespace distlock::detail::zookeeper {

class AsyncSemaphoreContention final : public AsyncSteps<AsyncSemaphoreContention> {
 public:
  // `path`: the lock path; the permits are request.hold.kind.permits. The request's names stay
  // valid until `done` has been called (backend.h).
  AsyncSemaphoreContention(const ZkContext& context, const AcquireRequest& request,
                           std::string path, AsyncExecutor& executor, ContentionDone done);

  void withdraw(std::exception_ptr why) override;

 private:
  friend AsyncSteps<AsyncSemaphoreContention>;

  // Takes the mutex; `first`: no deadline check before it.
  void round(bool first);
  void mutex_taken(std::optional<Won> mutex, bool mutex_contended, std::exception_ptr error);
  // Adds our lease node and judges the leases; false when a new round must start.
  bool take_lease();
  // Judges listings until the acquisition ends or waits; false when a new round must start.
  bool consider(ChildrenReply listed);
  // Leaves what the round held (the lease node known gone, the mutex) for a new one.
  void start_over();
  // A fresh watch on the leases, for the listing that sets it.
  void watch_leases();
  // The watch or the deadline's timer ended the wait numbered `generation`.
  void woken(std::uint64_t generation);
  void stop_waiting();
  // Ends it: the lease node goes unless won, the mutex goes, and `done` is posted.
  void finish(std::optional<Won> won, std::exception_ptr error);
  // A step threw: it ends here (the mutex's contention rides outages through).
  void failed(std::exception_ptr error) { finish(std::nullopt, std::move(error)); }

  const AcquireRequest request_;
  const ZkContext& context_;
  SemaphoreContention semaphore_;

  // Everything below is the executor thread's.
  // While the mutex is being taken; a withdrawal meanwhile goes to it, and waits here.
  std::shared_ptr<AsyncContention> mutex_waiter_;
  std::exception_ptr withdrawn_;
  std::shared_ptr<Session> session_;
  std::optional<OwnNode> held_mutex_;
  std::optional<CreatedLease> ours_;
  std::optional<OwnNode> lease_;
  std::optional<ChildrenWatch> watch_;
};

}  // namespace distlock::detail::zookeeper
