// SPDX-License-Identifier: Apache-2.0
#include <distlock/lease.h>

#include <distlock/log.h>

#include "core/client_core.h"
#include "core/held_leases.h"
#include "core/lease_state.h"
#include "util/steady_clock.h"

namespace distlock {
namespace {

const detail::LeaseState& checked_state(const std::shared_ptr<detail::LeaseState>& state) {
  if (!state) throw std::logic_error("distlock::Lease: used after it was moved from");
  return *state;
}

}  // namespace

Lease::Lease(std::shared_ptr<detail::ClientCore> core, std::shared_ptr<detail::LeaseState> state)
    : core_(std::move(core)), state_(std::move(state)) {}

Lease::Lease(Borrowed, std::shared_ptr<detail::LeaseState> state) : state_(std::move(state)) {}

Lease::Lease(Relocation, Lease&& other) noexcept
    : core_(std::move(other.core_)), state_(std::move(other.state_)) {}

Lease::Lease(Lease&& other) noexcept : Lease(Relocation{}, std::move(other)) {
  if (state_ && core_) state_->moved_to(this);
}

Lease& Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    release_and_log();
    core_ = std::move(other.core_);
    state_ = std::move(other.state_);
    if (state_ && core_) state_->moved_to(this);
  }
  return *this;
}

Lease::~Lease() { release_and_log(); }

void Lease::release_and_log() noexcept {
  if (!state_ || !core_ || !state_->begin_release()) return;
  detail::HeldLeases::pop(*state_);
  try {
    core_->release_unawaited(*state_);
  } catch (const std::exception& error) {
    detail::log(LogLevel::error, std::string(error.what()) + " (while releasing on scope exit)");
  }
  state_->drop_lost_callback();
}

const std::string& Lease::name() const { return checked_state(state_).identity().name; }
const std::string& Lease::id() const { return checked_state(state_).identity().acquisition_id; }
const std::string& Lease::server() const { return checked_state(state_).server(); }
std::uint64_t Lease::fence() const { return checked_state(state_).identity().fence; }
Millis Lease::ttl() const { return checked_state(state_).identity().ttl; }

bool Lease::valid() const { return state_ && state_->valid(detail::SteadyClock::now()); }

void Lease::ensure_held() const {
  const auto& state = checked_state(state_);
  const auto now = detail::SteadyClock::now();
  if (state.valid(now)) return;
  const std::string reason = state.invalid_reason(now);
  throw LockLost(name(), server(), "not held: " + reason);
}

detail::SteadyClock::time_point Lease::valid_until() const {
  return checked_state(state_).valid_until();
}

void Lease::on_lost(LostCallback callback) {
  checked_state(state_);
  state_->set_lost_callback(std::move(callback));
}

void Lease::release() {
  if (!state_ || !core_ || !state_->begin_release()) return;
  detail::HeldLeases::pop(*state_);
  const auto outcome = core_->release(*state_);
  // What the callback owns goes now, on this thread, not with the last view of the lease.
  state_->drop_lost_callback();
  if (outcome == detail::ReleaseOutcome::not_held) {
    throw detail::not_held_at_release(name(), server());
  }
}

}  // namespace distlock
