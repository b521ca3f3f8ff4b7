// SPDX-License-Identifier: Apache-2.0
// What a Lease shares with the client core and the renewal thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <distlock/error.h>
#include <distlock/lease.h>

#include "backends/backend.h"
#include "core/owner_token.h"
#include "util/steady_clock.h"

namespace distlock::detail {

struct LeaseIdentity {
  std::string name;
  std::string acquisition_id;
  std::string owner;
  std::uint64_t fence = 0;
  Millis ttl{0};
  LockKind kind;
  // The spec's lock type, which events name.
  std::string type;

  HoldId hold() const { return {name, owner, acquisition_id, kind}; }
};

class LeaseState {
 public:
  using TimePoint = SteadyClock::time_point;

  // `server` is the client's, as errors name it: shared so that a lease needs neither a copy
  // nor the client to name it.
  // `keep_until`: a release before then keeps the lock taken until then (hold_at_least).
  // `acquiring_owner`: the acquiring thread's, told when the lease is handed over.
  LeaseState(std::shared_ptr<const std::string> server, LeaseIdentity identity, TimePoint sent_at,
             std::uint64_t serial, TimePoint keep_until = {},
             std::shared_ptr<ThreadOwner> acquiring_owner = nullptr);

  const LeaseIdentity& identity() const { return identity_; }
  std::uint64_t serial() const { return serial_; }
  std::thread::id acquiring_thread() const { return acquiring_thread_; }
  const std::string& server() const { return *server_; }
  TimePoint keep_until() const { return keep_until_; }
  // When the lease was made, just after its grant arrived: a release's event counts the hold
  // from here.
  TimePoint granted_at() const { return granted_at_; }

  bool valid(TimePoint now) const;
  TimePoint valid_until() const;
  // After a renewal sent at `sent_at` succeeded. Validity never moves backwards.
  void extend(TimePoint sent_at);

  bool released() const { return released_.load(std::memory_order_acquire); }
  // True for the one caller that gets to release.
  bool begin_release() { return !released_.exchange(true, std::memory_order_acq_rel); }

  // Whether the Lease was moved off the acquiring thread's stack (into a container, a task for
  // another thread), or on another thread: from then on nobody re-enters it, and current() no
  // longer shows it on the acquiring thread, which cannot know who holds it.
  bool handed_over() const { return handed_over_.load(std::memory_order_acquire); }
  // The owning Lease was moved to `place`, on the calling thread.
  void moved_to(const void* place);

  // Whether a renewal has failed since the grant (the server could not be asked): the lease
  // may be valid still, but nothing proves the server still has it. Never cleared.
  bool doubted() const { return doubted_.load(std::memory_order_acquire); }
  void doubt() { doubted_.store(true, std::memory_order_release); }

  bool lost() const { return lost_.load(std::memory_order_acquire); }
  // Marks the lease lost; the first call reports it and runs the lost callback.
  void mark_lost(const std::string& reason);
  // Ignored once the lease is released.
  void set_lost_callback(Lease::LostCallback callback);
  // Called by the release, after which the callback can no longer run.
  void drop_lost_callback();
  // Why it was lost, or why it is not valid.
  std::string invalid_reason(TimePoint now) const;

 private:
  const std::shared_ptr<const std::string> server_;
  const LeaseIdentity identity_;
  const std::uint64_t serial_;
  const std::thread::id acquiring_thread_;
  const TimePoint keep_until_;
  const std::shared_ptr<ThreadOwner> acquiring_owner_;
  const TimePoint granted_at_ = SteadyClock::now();
  std::atomic<TimePoint::rep> valid_until_;
  std::atomic<bool> released_{false};
  std::atomic<bool> handed_over_{false};
  std::atomic<bool> lost_{false};
  std::atomic<bool> doubted_{false};

  mutable std::mutex callback_mutex_;
  Lease::LostCallback lost_callback_;
  std::optional<LockLost> lost_error_;
};

}  // namespace distlock::detail
