// SPDX-License-Identifier: Apache-2.0
// Hands a client's events to the service's hook (Options::on_event), which must not break the
// path that reports them: what it throws is logged and dropped.
#pragma once

#include <distlock/events.h>

#include "util/steady_clock.h"

namespace distlock::detail {

class EventSink {
 public:
  explicit EventSink(EventHook hook) : hook_(std::move(hook)) {}

  // Whether anyone listens: callers skip measuring what nobody reads.
  bool enabled() const { return static_cast<bool>(hook_); }
  void emit(EventKind kind, std::string_view type, Millis waited = Millis{0},
            Millis held = Millis{0}) const noexcept;

 private:
  const EventHook hook_;
};

// The whole milliseconds from `since` to now, for an event's waited or held.
inline Millis millis_since(SteadyClock::time_point since) {
  return std::chrono::duration_cast<Millis>(SteadyClock::now() - since);
}

}  // namespace distlock::detail
