// SPDX-License-Identifier: Apache-2.0
// The interface between the client core and a lock service. A backend knows one protocol;
// names, ids, owner tokens, leases and renewal scheduling belong to the core.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <functional>

#include <distlock/duration.h>
#include <distlock/spec.h>

#include "core/stats.h"
#include "util/steady_clock.h"

namespace distlock::detail {

// What a lock is, beyond its name: a spec's mode, permits and fairness.
struct LockKind {
  Mode mode = Mode::exclusive;  // read or write only where supports_read_write()
  std::uint32_t permits = 0;    // a semaphore (only where supports_permits()); 0: a lock
  bool fair = false;            // only where supports_fair()
  // An election's term (an exclusive lock): ZooKeeper names its node as Curator's LeaderLatch
  // does, so that Curator's participants elect with it.
  bool election = false;

  bool semaphore() const { return permits > 0; }
};

// Which hold a call is about.
struct HoldId {
  std::string_view name;            // the lock name, already escaped
  std::string_view owner;           // client instance id + thread: equal owners reenter
  std::string_view acquisition_id;  // unique per acquisition; makes retries idempotent
  LockKind kind;
};

struct AcquireRequest {
  HoldId hold;
  Millis ttl{0};
  // The owner holds a live lease of the same mode on this lock: the acquisition reenters.
  // Without one, holds a server keeps for this owner are orphans (acquisitions whose reply was
  // lost, so the owner never had them) and are taken over rather than reentered. Semaphores
  // never reenter: each acquisition takes a permit of its own.
  bool reentry = false;
  // Read mode: the owner holds a live write lease on this lock, so no other writer can be
  // waiting ahead of it.
  bool holds_write = false;
  // Give up at this point (SteadyClock::time_point::max(): never; now or earlier: try once).
  SteadyClock::time_point deadline;
};

struct Grant {
  std::uint64_t fence;
  // When the request that won the lock was sent: the lease's validity counts from here.
  SteadyClock::time_point sent_at;
  // Whether the acquisition found the lock taken and waited (counted in stats.contended).
  bool contended = false;
};

struct ReleaseRequest {
  HoldId hold;
  // When this is the lock's last hold, keep the lock taken, by nobody, for this long instead of
  // freeing it (hold_at_least). Zero: free it now. Only where supports_keeping().
  Millis keep_for{0};
  // The end of the lease's local validity: a release sent again that finds the hold gone tells
  // by it whether its first send removed the hold (sent before it) or the hold had run out.
  SteadyClock::time_point valid_until = SteadyClock::time_point::max();
};

enum class ReleaseOutcome {
  released,  // this acquisition's hold is gone (the lock is free if it was the last hold)
  not_held,  // the server did not have this hold: expired, taken over, or deleted
};

// What became of a release that did not wait for its reply (Backend::release_unawaited).
struct ReleaseReport {
  std::optional<ReleaseOutcome> outcome;  // none: the server could not be told, or failed
  std::string failure;                    // why, naming the lock and the server
};
using ReleaseReportHandler = std::function<void(const ReleaseReport&)>;

struct RenewItem {
  HoldId hold;
  Millis ttl;
  enum class Outcome { renewed, lost, failed } outcome = Outcome::failed;
  std::string error;  // for `failed`: why the server could not be asked
};

class AsyncExecutor;

// An acquisition that waits without a thread (Backend::acquire_async).
class PendingAcquisition {
 public:
  virtual ~PendingAcquisition() = default;
  // Leaves the wait at once: its queue place, writer intent or permit request goes, and the
  // acquisition completes with `why`, unless it has completed already. Thread-safe.
  virtual void withdraw(std::exception_ptr why) = 0;
};

// How an asynchronous acquisition ends, called once on the executor's thread with no lock of
// the runtime held: the grant; nullopt when the deadline passed; or why it failed.
using AcquireCompletion = std::function<void(std::optional<Grant>, std::exception_ptr)>;

class Backend {
 public:
  virtual ~Backend() = default;

  // Takes the lock, waiting until `request.deadline`; nullopt when the deadline passed.
  // Throws BackendUnavailable (naming the lock and the server) when the server fails.
  virtual std::optional<Grant> acquire(const AcquireRequest& request) = 0;

  // Starts taking the lock as acquire() does, without blocking: waiting is driven by releases
  // and timers, with no thread per waiter. The first attempt may be made before it returns,
  // every later step runs on `executor`, and `done` is called once there. The request's names
  // must stay valid until then.
  virtual std::shared_ptr<PendingAcquisition> acquire_async(const AcquireRequest& request,
                                                            AsyncExecutor& executor,
                                                            AcquireCompletion done) = 0;

  // Removes one acquisition's hold. Idempotent: a retry after a lost reply is harmless.
  virtual ReleaseOutcome release(const ReleaseRequest& request) = 0;

  // The same release, for a caller that does not wait for the outcome (a Lease leaving its
  // scope): `report` gets it, now or later, from whichever thread reads the reply (the next
  // user of the connection the request went out on, or a thread of the backend's own). The
  // request has left for the server before this returns, or is sent again by the backend; an
  // outcome of none says it never got there. `report` must not throw. By default, the release
  // is made at once, as release(): the core calls it only where sends_releases_unawaited().
  virtual void release_unawaited(const ReleaseRequest& request, const ReleaseReportHandler& report);
  // Whether release_unawaited() returns without waiting for the server (it sends the request
  // and reads the reply later, or its release is in-process). Else the core makes the release
  // on a thread of its own (core/unawaited_releases.h).
  virtual bool sends_releases_unawaited() const { return false; }

  // Extends each lease to its ttl if this acquisition still holds it, in one batch
  // (pipelined where the protocol allows). Sets each item's outcome; never throws. Gives up
  // (outcome `failed`) by `deadline`, when the first of the leases stops being valid: a
  // stalled server must not keep the core from reporting the loss on time.
  virtual void renew(std::span<RenewItem> items, SteadyClock::time_point deadline) = 0;

  // The server as messages name it: the URL without its password.
  virtual const std::string& server() const = 0;

  // Whether Mode::read and Mode::write are understood.
  virtual bool supports_read_write() const { return false; }
  // Whether semaphores (LockKind::permits) are understood.
  virtual bool supports_permits() const { return false; }
  // Whether fair locks are: granted in arrival order, each release waking the next only.
  virtual bool supports_fair() const { return false; }
  // Whether a release can keep the lock taken for a while (ReleaseRequest::keep_for).
  virtual bool supports_keeping() const { return false; }

  // The longest lease the backend can vouch for without hearing from the server (a
  // ZooKeeper session timeout, say): leases get at most this ttl. None: the spec's ttl.
  virtual std::optional<Millis> lease_time_limit() const { return std::nullopt; }

  // `alarm` is called, from any thread, when the backend learns that leases may have been
  // lost all at once (an expired session): the core then renews every lease at once, and
  // the renewals report which are gone. Called once, before any acquire.
  // A sink (overrides keep it); backends that never lose leases all at once ignore it.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  virtual void set_loss_alarm(std::function<void()> /*alarm*/) {}
};

}  // namespace distlock::detail
