// What a waiting caller sleeps on: a watch event on the node it waits behind, or the end of
// its session. Notified from the ZooKeeper client's completion thread, which it never blocks
// for longer than a short mutex.
#pragma once

#include <condition_variable>
#include <mutex>

#include "backends/backend.h"

namespace distlock::detail::zookeeper {

class Wakeup {
 public:
  enum class Cause {
    none,           // the wait ran out
    node_event,     // the watched node changed or went away
    session_event,  // the session ended: the waiter's own node is gone too
  };

  // The first cause wins; later ones are ignored.
  void notify(Cause cause);
  // Waits until notified or `until` (SteadyClock::time_point::max(): no limit).
  Cause wait_until(SteadyClock::time_point until);

 private:
  std::mutex mutex_;
  std::condition_variable notified_;
  Cause cause_ = Cause::none;
};

}  // namespace distlock::detail::zookeeper
