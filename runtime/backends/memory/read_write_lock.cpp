// SPDX-License-Identifier: Apache-2.0
#include "backends/memory/read_write_lock.h"

namespace distlock::detail::memory {

Attempt ReadWriteLock::attempt_read(const AcquireRequest& request, SteadyClock::time_point now,
                                    TableAccess& table) {
  // The writer's own reads are granted: nobody else can be reading or waiting ahead of it.
  if (writer_.taken(now) && !writer_.taken_by(request.hold.owner, now))
    return {std::nullopt, writer_.expires_at()};
  // Readers that already read the lock go on: holding them back would not let the writer in.
  // The waiting writer's grant or withdrawal wakes the others.
  if (!writer_.taken(now) && !request.reentry && !waiting_writers_.empty()) return {};
  readers_.drop_expired(now);
  return {readers_.take(request, table.next_fence(), now)};
}

Attempt ReadWriteLock::attempt_write(const AcquireRequest& request, SteadyClock::time_point now,
                                     TableAccess& table) {
  if (writer_.taken_by(request.hold.owner, now)) return {writer_.reenter(request, now)};
  if (writer_.taken(now)) return {std::nullopt, writer_.expires_at()};
  readers_.drop_expired(now);
  if (!readers_.empty()) return {std::nullopt, readers_.first_expiry()};
  const Grant grant = writer_.take(request, table.next_fence(), now);
  // Readers held back by waiting writers waited for nothing but their deadlines.
  waiting_readers_.bound_waits(writer_.expires_at());
  return {grant};
}

Contest ReadWriteLock::contest(const AcquireRequest& request) {
  if (request.hold.kind.mode == Mode::read) {
    return {waiting_readers_, [this, &request](TableAccess& table, SteadyClock::time_point now,
                                               const WaitQueue::Place*) {
              return attempt_read(request, now, table);
            }};
  }
  return {waiting_writers_,
          [this, &request](TableAccess& table, SteadyClock::time_point now,
                           const WaitQueue::Place*) { return attempt_write(request, now, table); },
          // The last writer to give up waiting lets the readers it held back in.
          [this](TableAccess&) {
            if (waiting_writers_.empty()) waiting_readers_.wake_all();
          }};
}

ReleaseOutcome ReadWriteLock::release(const ReleaseRequest& request, SteadyClock::time_point now) {
  if (request.hold.kind.mode == Mode::read) {
    const ReleaseEffect effect = readers_.release(request.hold, request.keep_for, now);
    if (effect == ReleaseEffect::not_held) return ReleaseOutcome::not_held;
    // Only writers wait for readers, and only for the last of them.
    readers_.drop_expired(now);
    if (effect == ReleaseEffect::freed && readers_.empty()) waiting_writers_.wake_all();
    if (effect == ReleaseEffect::kept) waiting_writers_.bound_waits(readers_.first_expiry());
    return ReleaseOutcome::released;
  }
  const ReleaseEffect effect = writer_.release(request.hold, request.keep_for, now);
  if (effect == ReleaseEffect::not_held) return ReleaseOutcome::not_held;
  if (effect == ReleaseEffect::freed) {
    // The readers go in together, unless a writer is waiting: then one of the writers does.
    waiting_readers_.wake_all();
    waiting_writers_.wake_all();
  } else if (effect == ReleaseEffect::kept) {
    waiting_readers_.bound_waits(writer_.expires_at());
    waiting_writers_.bound_waits(writer_.expires_at());
  }
  return ReleaseOutcome::released;
}

bool ReadWriteLock::renew(const HoldId& hold, Millis ttl, SteadyClock::time_point now) {
  if (hold.kind.mode == Mode::read) return readers_.renew(hold, ttl, now);
  return writer_.renew(hold, ttl, now);
}

bool ReadWriteLock::idle(SteadyClock::time_point now) {
  readers_.drop_expired(now);
  return !writer_.taken(now) && readers_.empty() && waiting_readers_.empty() &&
         waiting_writers_.empty();
}

}  // namespace distlock::detail::memory
