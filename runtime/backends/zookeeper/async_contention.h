// SPDX-License-Identifier: Apache-2.0
// A ZooKeeper lock acquisition that waits without a thread (Client::acquire_async on
// zookeeper://, and the mutex of an asynchronous semaphore acquisition): the steps of
// contention.h, each a task on the client's executor. Finding the lock taken, it watches the
// one contender before it; the release fires the watch, whose callback (on the ZooKeeper
// client's completion thread) sends the next listing and, with its reply, posts the next
// step. A timer at the deadline is the only other thing that wakes it.
//
// The round trips between waits (the create with the first listing, a listing again, the
// delete of a node given up) are the blocking path's own, made on the executor's thread: each
// is short, and taking them as the waiting thread takes them keeps the protocol (a create
// whose reply was lost, a disconnection ridden out, a session that ends) in one place rather
// than in a second, callback-driven copy. A disconnection stalls that thread, as it stalls a
// waiting thread, for up to connect_timeout.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "backends/backend.h"
#include "backends/zookeeper/async_steps.h"
#include "backends/zookeeper/contention.h"
#include "backends/zookeeper/context.h"
#include "backends/zookeeper/own_node.h"
#include "core/async_executor.h"

namespace distlock::detail::zookeeper {

class AsyncContention final : public AsyncSteps<AsyncContention> {
 public:
  // `write_hold`: as Contention's. The request's names stay valid until `done` has been
  // called (backend.h).
  AsyncContention(const ZkContext& context, const AcquireRequest& request, std::string path,
                  std::optional<HeldNode> write_hold, AsyncExecutor& executor, ContentionDone done);

  void withdraw(std::exception_ptr why) override;

 private:
  friend AsyncSteps<AsyncContention>;

  // From the session and a new contender node on; `first`: no deadline check before it.
  void round(bool first);
  // Judges listings (`next`: one in hand) until the acquisition ends or waits; false when a
  // new round must start.
  bool consider(std::optional<ChildrenReply> next);
  // The watch or the deadline's timer ended the wait numbered `generation`.
  void woken(std::uint64_t generation);
  void stop_waiting();
  // Ends it: the node goes unless won, and `done` is posted.
  void finish(std::optional<Won> won, std::exception_ptr error);

  const AcquireRequest request_;
  const ZkContext& context_;
  Contention contention_;

  // Everything below is the executor thread's.
  std::shared_ptr<Session> session_;
  std::optional<Contention::Entered> entered_;
  std::optional<OwnNode> own_;
  std::optional<WaitBehind> waiting_on_;
};

}  // namespace distlock::detail::zookeeper
