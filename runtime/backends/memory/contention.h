// SPDX-License-Identifier: Apache-2.0
// Taking an in-process lock: attempts, and waits in the lock's queue between them, until one
// grants or the caller's deadline passes. A lock kind says what one acquisition's contest is
// (Contest); the calling thread waits it out here (take_or_wait), an asynchronous acquisition
// on the client's executor (async_contender.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
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

// One acquisition's contest for a lock: the queue it waits in, one attempt, and what its
// giving up owes the waiters behind it. Made by the lock kind for a request it refers to.
struct Contest {
  WaitQueue& queue;
  // One attempt; `place` is the caller's place in the queue (null: not queued yet).
  std::function<Attempt(TableAccess&, SteadyClock::time_point now, const WaitQueue::Place* place)>
      attempt;
  // Called once the caller, not granted, has left the queue: a waiter that gives up may have
  // been the one woken to take a free lock or permit, and the next must take its turn.
  std::function<void(TableAccess&)> gave_up = [](TableAccess&) {};
};

// Makes the contest's attempts until one grants or `deadline` passes; in between the caller
// waits in the contest's queue. Returns the grant, or nullopt having left the queue.
inline std::optional<Grant> take_or_wait(TableAccess& table, const Contest& contest,
                                         SteadyClock::time_point deadline) {
  auto now = SteadyClock::now();
  Attempt found = contest.attempt(table, now, nullptr);
  if (!found.grant && now < deadline) {
    ++table.stats.contended;
    WaitQueue::Place place(contest.queue);
    for (;;) {
      place.wait(table.lock, std::min(found.busy_until, deadline), table.stats);
      now = SteadyClock::now();
      found = contest.attempt(table, now, &place);
      if (found.grant) found.grant->contended = true;
      if (found.grant || now >= deadline) break;
    }
  }
  if (!found.grant) contest.gave_up(table);
  return found.grant;
}

}  // namespace distlock::detail::memory
