// SPDX-License-Identifier: Apache-2.0
#include "core/lease_state.h"

#include <distlock/log.h>

#include "core/validity.h"
#include "util/thread_stack.h"

namespace distlock::detail {
namespace {

// The callback is the user's code, run on the renewal thread: what it throws is logged.
void run_lost_callback(const Lease::LostCallback& callback, const LockLost& error) {
  if (!callback) return;
  try {
    callback(error);
  } catch (const std::exception& thrown) {
    detail::log(LogLevel::error, std::string("distlock: a lost-lease callback of lock '") +
                                     error.lock() + "' threw: " + thrown.what());
  } catch (...) {
    detail::log(LogLevel::error, "distlock: a lost-lease callback of lock '" + error.lock() +
                                     "' threw a non-exception");
  }
}

}  // namespace

LeaseState::LeaseState(std::shared_ptr<const std::string> server, LeaseIdentity identity,
                       TimePoint sent_at, std::uint64_t serial, TimePoint keep_until,
                       std::shared_ptr<ThreadOwner> acquiring_owner)
    : server_(std::move(server)),
      identity_(std::move(identity)),
      serial_(serial),
      acquiring_thread_(std::this_thread::get_id()),
      keep_until_(keep_until),
      acquiring_owner_(std::move(acquiring_owner)),
      valid_until_(detail::valid_until(sent_at, identity_.ttl).time_since_epoch().count()) {}

LeaseState::TimePoint LeaseState::valid_until() const {
  return TimePoint(TimePoint::duration(valid_until_.load(std::memory_order_acquire)));
}

bool LeaseState::valid(TimePoint now) const {
  return !released() && !lost() && now < valid_until();
}

void LeaseState::moved_to(const void* place) {
  if (std::this_thread::get_id() == acquiring_thread_ && on_this_threads_stack(place)) return;
  if (!handed_over_.exchange(true, std::memory_order_acq_rel) && acquiring_owner_)
    acquiring_owner_->handed_over();
}

void LeaseState::extend(TimePoint sent_at) {
  const auto proposed = detail::valid_until(sent_at, identity_.ttl).time_since_epoch().count();
  auto current = valid_until_.load(std::memory_order_acquire);
  while (current < proposed &&
         !valid_until_.compare_exchange_weak(current, proposed, std::memory_order_acq_rel)) {
  }
}

void LeaseState::mark_lost(const std::string& reason) {
  if (lost_.exchange(true, std::memory_order_acq_rel)) return;
  LockLost error(identity_.name, server(), "lost: " + reason);
  detail::log(LogLevel::warning, error.what());
  Lease::LostCallback callback;
  {
    std::lock_guard lock(callback_mutex_);
    lost_error_ = error;
    callback = std::move(lost_callback_);
  }
  run_lost_callback(callback, error);
}

void LeaseState::set_lost_callback(Lease::LostCallback callback) {
  std::optional<LockLost> already_lost;
  {
    std::lock_guard lock(callback_mutex_);
    if (released()) return;
    if (!lost_error_) {
      lost_callback_ = std::move(callback);
      return;
    }
    already_lost = lost_error_;
  }
  run_lost_callback(callback, *already_lost);
}

void LeaseState::drop_lost_callback() {
  Lease::LostCallback dropped;
  {
    std::lock_guard lock(callback_mutex_);
    dropped.swap(lost_callback_);
  }
}

std::string LeaseState::invalid_reason(TimePoint now) const {
  if (released()) return "the lease was released";
  if (lost()) {
    std::lock_guard lock(callback_mutex_);
    if (lost_error_) return lost_error_->what();
    return "the lease was lost";
  }
  if (now >= valid_until())
    return "the lease ran out (ttl " + std::to_string(identity_.ttl.count()) +
           " ms) before a renewal got through";
  return "the lease is valid";
}

}  // namespace distlock::detail
