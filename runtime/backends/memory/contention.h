// SPDX-License-Identifier: Apache-2.0
// Taking an in-process lock: attempts, and waits in the lock's queue between them, until one
// grants or the caller's deadline passes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>

#include "backends/backend.h"
#include "backends/memory/wait_queue.h"
#include "core/stats.h"
#include "util/steady_clock.h"

namespace distlock::detail::memory {

// What acquiring needs of the lock table: its mutex (locked), its fences, the client's counters.
struct TableAccess {
  std::unique_lock<std::mutex>& lock;
  // The table's last fence: fences increase across every name and kind, so per name too.
  std::uint64_t& last_fence;
  StatsCounters& stats;

  std::uint64_t next_fence() { return ++last_fence; }
};

// What one attempt to take a lock found.
struct Attempt {
  std::optional<Grant> grant;
  // Not granted: the lock stays as it is until a release wakes the caller, or at the latest
  // until this time (when the hold in the way expires).
  SteadyClock::time_point busy_until = SteadyClock::time_point::max();
};

// Calls `attempt(now, place)` until it grants or `deadline` passes; in between the caller
// waits in `queue`, its place given to `attempt` (null for the first attempt, made before the
// caller queues). Returns the grant, or nullopt having left the queue.
template <typename AttemptFn>
std::optional<Grant> take_or_wait(TableAccess& table, WaitQueue& queue,
                                  SteadyClock::time_point deadline, AttemptFn attempt) {
  auto now = SteadyClock::now();
  Attempt found = attempt(now, static_cast<const WaitQueue::Place*>(nullptr));
  if (found.grant || now >= deadline) return found.grant;
  ++table.stats.contended;
  WaitQueue::Place place(queue);
  for (;;) {
    place.wait(table.lock, std::min(found.busy_until, deadline), table.stats);
    now = SteadyClock::now();
    found = attempt(now, &place);
    if (found.grant) found.grant->contended = true;
    if (found.grant || now >= deadline) return found.grant;
  }
}

}  // namespace distlock::detail::memory
