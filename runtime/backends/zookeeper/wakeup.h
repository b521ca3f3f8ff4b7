// SPDX-License-Identifier: Apache-2.0
// What a waiting caller sleeps on: a watch event on the node it waits behind, the failure of
// the request that set the watch, or the end of its session. Notified from the ZooKeeper
// client's completion thread, which it never blocks for longer than a short mutex. A waiter
// that sleeps on no thread (Client::acquire_async) is told through a callback instead.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

#include "backends/backend.h"

namespace distlock::detail::zookeeper {

class Session;

class Wakeup : public std::enable_shared_from_this<Wakeup> {
 public:
  enum class Cause {
    none,           // the wait ran out
    node_event,     // the watched node changed or went away; what the waiter needs next is in
    session_event,  // the session ended: the waiter's own node is gone too
    watch_failed,   // the watch was not set: failure() says why
  };
  using OnNodeEvent = std::function<void(Session&, const std::shared_ptr<Wakeup>&)>;
  using OnWoken = std::function<void()>;

  // `on_node_event` runs on the completion thread when the watched node changes, with the
  // session whose watch fired and this wakeup. It sends what the waiter needs next (without
  // waiting for it) and has the reply notify node_event, so the waiter wakes once, with it.
  // `on_woken`, if any, runs once the first cause is in, on the thread that notified: it must
  // only post the waiter's next step.
  explicit Wakeup(OnNodeEvent on_node_event, OnWoken on_woken = {});

  // The watched node changed: runs on_node_event.
  void node_event(Session& session);
  // The request setting the watch failed with `rc`.
  void watch_failed(int rc);
  // The first cause wins; later ones are ignored.
  void notify(Cause cause);
  // Waits until notified or `until` (SteadyClock::time_point::max(): no limit).
  Cause wait_until(SteadyClock::time_point until);
  // The cause so far, without waiting (none: not notified yet).
  Cause cause() const;
  // The code of watch_failed.
  int failure() const;

 private:
  void wake(Cause cause, int failure);

  const OnNodeEvent on_node_event_;
  const OnWoken on_woken_;
  mutable std::mutex mutex_;
  std::condition_variable notified_;
  Cause cause_ = Cause::none;
  int failure_ = 0;
};

}  // namespace distlock::detail::zookeeper
