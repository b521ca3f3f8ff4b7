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
// than in a second, callback-driven copy. A round begins only with a session ready: while none
// is, the round is tried again on a timer as core/ride_through.h says, holding no thread, until
// the wait (or outage_limit) ends. A disconnection in the middle of a round stalls the
// executor's thread, as it stalls a waiting thread, up to connect_timeout or the deadline,
// whichever comes first (issue 45), and is then ridden through the same way.
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
#include "core/ride_through.h"

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
  // Whether a session is ready now. If none is, the round is tried again after the pause the
  // policy gives (a timer: no thread waits), or, once the time is up, it throws
  // BackendUnavailable.
  bool session_ready_now();
  // A step threw `error`. A BackendUnavailable met while no session is ready is the outage's:
  // ridden through as above; anything else ends the acquisition.
  void failed(std::exception_ptr error);
  // After `failure`, the next round on a timer after the policy's pause; false when the time is
  // up, or the credentials were refused.
  bool ride_through(const BackendUnavailable& failure);
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
  RideThrough outage_;
  std::optional<AsyncExecutor::TimerId> next_round_;
  std::shared_ptr<Session> session_;
  std::optional<Contention::Entered> entered_;
  std::optional<OwnNode> own_;
  std::optional<WaitBehind> waiting_on_;
};

}  // namespace distlock::detail::zookeeper
