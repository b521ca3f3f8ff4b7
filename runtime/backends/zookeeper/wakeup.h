// What a waiting caller sleeps on: a watch event on the node it waits behind, the failure of
// the request that set the watch, or the end of its session. Notified from the ZooKeeper
// client's completion thread, which it never blocks for longer than a short mutex.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>

#include "backends/backend.h"

namespace distlock::detail::zookeeper {

class Session;

class Wakeup {
 public:
  enum class Cause {
    none,           // the wait ran out
    node_event,     // the watched node changed or went away
    session_event,  // the session ended: the waiter's own node is gone too
    watch_failed,   // the watch was not set: failure() says why
  };

  // `on_node_event` runs on the completion thread when the watched node changes, before the
  // waiter is woken, with the session whose watch fired: it may send requests (the waiter's
  // next one, so that it is on its way while the waiter wakes up) but not wait for them.
  explicit Wakeup(std::function<void(Session&)> on_node_event);

  // The watched node changed: on_node_event, then wakes the waiter.
  void node_event(Session& session);
  // The request setting the watch failed with `rc`.
  void watch_failed(int rc);
  // The first cause wins; later ones are ignored.
  void notify(Cause cause);
  // Waits until notified or `until` (SteadyClock::time_point::max(): no limit).
  Cause wait_until(SteadyClock::time_point until);
  // The code of watch_failed.
  int failure() const;

 private:
  void wake(Cause cause, int failure);

  const std::function<void(Session&)> on_node_event_;
  mutable std::mutex mutex_;
  std::condition_variable notified_;
  Cause cause_ = Cause::none;
  int failure_ = 0;
};

}  // namespace distlock::detail::zookeeper
