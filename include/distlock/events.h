// SPDX-License-Identifier: Apache-2.0
// What happens to a client's locks, for metrics: Options::on_event receives each event.
//
// The hook runs on the thread where the event happened: the acquiring or releasing thread, or,
// for renewed, renewal_failed and lost, the client's renewal thread. Keep it short, as a counter
// increment is; it must not acquire or release locks of the same client. What it throws is
// logged and ignored. PrometheusMetrics (distlock/prometheus.h) is a ready hook.
#pragma once

#include <functional>
#include <string_view>

#include <distlock/duration.h>

namespace distlock {

// What happened to a lock.
enum class EventKind {
  acquired,        // a lease was granted; `waited`: from the call to the grant
  contended,       // an acquisition found the lock taken; acquired or timeout follows
  released,        // a lease was released; `held`: from the grant to the release
  renewed,         // a renewal extended a lease
  renewal_failed,  // a renewal failed for a network error; it is retried while the lease is valid
  lost,            // a renewal or the release found the lock no longer held by the lease
  timeout,         // LockTimeout thrown or try_acquire empty; `waited`: how long it tried
  release_failed,  // a release never reached the server (on scope exit: not even sent again); the
                   // lock stays taken until its ttl runs out
};

// One event, as Options::on_event receives it.
struct Event {
  EventKind kind;         // what happened
  std::string_view type;  // the lock type, as the spec names it ("order"); valid during the call
  Millis waited{0};       // acquired, timeout: how long the caller waited
  Millis held{0};         // released: how long the lease was held
};

// The hook Options::on_event takes.
using EventHook = std::function<void(const Event&)>;

// "acquired", "contended", ...: the enumerator's name.
std::string_view to_string(EventKind kind);

}  // namespace distlock
