// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/locks/kind_calls.h"

#include <cassert>
#include <string>

#include "backends/redis/locks/redis_keys.h"

namespace distlock::detail::redis {
namespace {

// A reader's or a permit's hold: one of many, each with its own expiry.
bool is_shared(const LockKind& kind) { return kind.semaphore() || kind.mode == Mode::read; }

// The hash of an exclusive lock or of a read-write lock's writer.
std::string owner_hash_key(const HoldId& hold) {
  return hold.kind.mode == Mode::write ? writer_key(hold.name) : lock_key(hold.name);
}

}  // namespace

std::string release_channel_of(const HoldId& hold) {
  if (hold.kind.semaphore()) return permits_channel(hold.name);
  if (hold.kind.mode != Mode::exclusive) return read_write_channel(hold.name);
  return release_channel(hold.name);
}

void KindCall::add(std::string_view view) {
  assert(view_count_ < views_.size());
  views_[view_count_++] = view;
}

void KindCall::add_kept(std::string text) {
  assert(text_count_ < texts_.size());
  add(texts_[text_count_++] = std::move(text));
}

void KindCall::add_shared_hold_keys(const HoldId& hold) {
  if (hold.kind.semaphore()) {
    add_kept(permit_expiries_key(hold.name));
    add_kept(permit_holders_key(hold.name));
  } else {
    add_kept(reader_expiries_key(hold.name));
    add_kept(reader_holders_key(hold.name));
  }
}

void KindCall::add_fair_queue_keys(const HoldId& hold) {
  add_kept(queue_key(hold.name));
  add_kept(queue_expiries_key(hold.name));
  add_kept(queue_grants_key(hold.name));
}

ScriptCall KindCall::call(Script script, std::size_t key_count) {
  return {script, {views_.data(), key_count}, {views_.data() + key_count, view_count_ - key_count}};
}

ScriptCall KindCall::acquire(const AcquireRequest& request, std::string_view holder,
                             std::string_view attempt, bool others_wait) {
  const HoldId& hold = request.hold;
  const LockKind& kind = hold.kind;
  Script script = Script::acquire;
  if (kind.semaphore()) {
    script = Script::acquire_permit;
    add_shared_hold_keys(hold);
    add_kept(fence_key(hold.name));
  } else if (kind.mode != Mode::exclusive) {
    script = kind.mode == Mode::read ? Script::acquire_read : Script::acquire_write;
    add_kept(writer_key(hold.name));
    add_kept(fence_key(hold.name));
    add_kept(reader_expiries_key(hold.name));
    add_kept(reader_holders_key(hold.name));
    add_kept(waiting_writers_key(hold.name));
  } else {
    if (kind.fair) script = Script::acquire_fair;
    add_kept(lock_key(hold.name));
    add_kept(fence_key(hold.name));
    if (kind.fair) add_fair_queue_keys(hold);
  }
  const std::size_t key_count = view_count_;
  add(hold.owner);
  add_kept(std::to_string(request.ttl.count()));
  add(hold.acquisition_id);
  add(holder);
  add(request.reentry ? "1" : "0");
  if (kind.semaphore())
    add_kept(std::to_string(kind.permits));
  else if (kind.mode == Mode::read)
    add(request.holds_write ? "1" : "0");
  else if (kind.fair)
    add(attempt);
  if (kind.mode == Mode::exclusive && !kind.semaphore()) add(others_wait ? "1" : "0");
  return call(script, key_count);
}

ScriptCall KindCall::release(const HoldId& hold, Millis keep_for, std::string_view publish) {
  const bool shared = is_shared(hold.kind);
  if (shared) {
    add_shared_hold_keys(hold);
  } else {
    add_kept(owner_hash_key(hold));
    if (hold.kind.fair) {
      add_kept(fence_key(hold.name));
      add_fair_queue_keys(hold);
    }
  }
  const std::size_t key_count = view_count_;
  add(hold.acquisition_id);
  add_kept(release_channel_of(hold));
  add(publish);
  add_kept(std::to_string(keep_for.count()));
  if (!shared) return call(hold.kind.fair ? Script::release_fair : Script::release, key_count);
  // Every permit let go makes room for a waiter; of the readers, only the last to go does.
  add(hold.kind.semaphore() ? "each" : "last");
  return call(Script::release_shared, key_count);
}

ScriptCall KindCall::renew(const HoldId& hold, Millis ttl) {
  const bool shared = is_shared(hold.kind);
  if (shared)
    add_shared_hold_keys(hold);
  else
    add_kept(owner_hash_key(hold));
  const std::size_t key_count = view_count_;
  add(hold.acquisition_id);
  add_kept(std::to_string(ttl.count()));
  return call(shared ? Script::renew_shared : Script::renew, key_count);
}

ScriptCall KindCall::withdraw(const HoldId& hold, std::string_view publish) {
  assert(leaves_trace_when_waiting(hold.kind));
  const bool fair = hold.kind.fair;
  if (fair) {
    add_kept(lock_key(hold.name));
    add_kept(fence_key(hold.name));
    add_fair_queue_keys(hold);
  } else {
    add_kept(waiting_writers_key(hold.name));
  }
  const std::size_t key_count = view_count_;
  add(hold.acquisition_id);
  add_kept(release_channel_of(hold));
  add(publish);
  return call(fair ? Script::withdraw_fair : Script::withdraw_writer, key_count);
}

}  // namespace distlock::detail::redis
