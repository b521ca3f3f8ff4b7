// SPDX-License-Identifier: Apache-2.0
#include "core/event_sink.h"

#include <distlock/log.h>

#include <exception>
#include <string>

namespace distlock::detail {

void EventSink::emit(EventKind kind, std::string_view type, Millis waited,
                     Millis held) const noexcept {
  if (!hook_) return;
  try {
    hook_(Event{kind, type, waited, held});
  } catch (const std::exception& thrown) {
    log(LogLevel::error, "distlock: the event hook threw on a " + std::string(to_string(kind)) +
                             " event of lock type '" + std::string(type) + "': " + thrown.what());
  } catch (...) {
    log(LogLevel::error, "distlock: the event hook threw a non-exception on a " +
                             std::string(to_string(kind)) + " event of lock type '" +
                             std::string(type) + "'");
  }
}

}  // namespace distlock::detail

namespace distlock {

std::string_view to_string(EventKind kind) {
  switch (kind) {
    case EventKind::acquired:
      return "acquired";
    case EventKind::contended:
      return "contended";
    case EventKind::released:
      return "released";
    case EventKind::renewed:
      return "renewed";
    case EventKind::renewal_failed:
      return "renewal_failed";
    case EventKind::lost:
      return "lost";
    case EventKind::timeout:
      return "timeout";
    case EventKind::release_failed:
      return "release_failed";
  }
  return "unknown";
}

}  // namespace distlock
