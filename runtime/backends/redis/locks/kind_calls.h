// SPDX-License-Identifier: Apache-2.0
// Which script, keys and arguments each kind of lock uses to acquire, renew and release: the
// exclusive lock's hash, a read-write lock's writer hash and readers, a semaphore's permits
// (redis_keys.h, scripts/*.lua).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "backends/backend.h"
#include "backends/redis/locks/script_runner.h"

namespace distlock::detail::redis {

// Where the releases that can let a waiter of this kind in are published.
std::string release_channel_of(const HoldId& hold);

// Whether one release can let in several waiters of one client at once (the readers after a
// writer), so that each of them must retry, not only one.
inline bool release_lets_many_in(const LockKind& kind) { return kind.mode == Mode::read; }

// Whether a waiter of this kind leaves a trace on the server that must go when it stops waiting.
inline bool leaves_trace_when_waiting(const LockKind& kind) {
  return kind.mode == Mode::write || kind.fair;
}

// The texts of one script call. The call points into them: it stays valid while they live,
// and they do not move.
class KindCall {
 public:
  KindCall() = default;
  KindCall(const KindCall&) = delete;
  KindCall& operator=(const KindCall&) = delete;

  // `holder`: '<host> <pid> <acquired_at ms>', for people and tools. `attempt`: the attempt's
  // token (attempt_token), which a fair lock's release that grants the lock repeats.
  // `others_wait`: waiters of this client watch the lock's releases, so that a grant must be
  // marked as waited for (lib/exclusive_hold.lua): its release wakes them.
  ScriptCall acquire(const AcquireRequest& request, std::string_view holder,
                     std::string_view attempt, bool others_wait);
  // `publish`: PUBLISH, or SPUBLISH in a cluster.
  ScriptCall release(const HoldId& hold, Millis keep_for, std::string_view publish);
  ScriptCall renew(const HoldId& hold, Millis ttl);
  // A waiter whose wait ran out that left a trace behind (a writer's mark, a fair waiter's place
  // in the queue) takes it back. Only where leaves_trace_when_waiting().
  ScriptCall withdraw(const HoldId& hold, std::string_view publish);

 private:
  void add(std::string_view view);
  // Adds a view of a copy of `text` that this object keeps.
  void add_kept(std::string text);
  // A reader's or a permit's: its expiries and holders.
  void add_shared_hold_keys(const HoldId& hold);
  // A fair lock's queue: its waiters, their expiries and what a release grants them with.
  void add_fair_queue_keys(const HoldId& hold);
  ScriptCall call(Script script, std::size_t key_count);

  std::array<std::string, 7> texts_;
  std::size_t text_count_ = 0;
  std::array<std::string_view, 12> views_;
  std::size_t view_count_ = 0;
};

}  // namespace distlock::detail::redis
