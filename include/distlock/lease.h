// SPDX-License-Identifier: Apache-2.0
// Lease: one held lock. Move-only; releases the lock when destroyed.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <distlock/duration.h>
#include <distlock/error.h>

namespace distlock {

namespace detail {
class ClientCore;
class LeaseState;
class HeldLeases;
}  // namespace detail

class Client;
class Leadership;
class LockedCall;

// One held lock: its name, fence and validity. Move-only; the lock is released when the
// owning Lease is destroyed or release() is called.
class Lease {
 public:
  // What on_lost() calls when the lease is found lost.
  using LostCallback = std::function<void(const LockLost&)>;

  // The key to the library's own moves, which put a lease in its place without handing it over.
  class Relocation {
    Relocation() = default;
    friend class Client;
    friend class LockedCall;
    friend class detail::ClientCore;
    friend class Lease;
  };

  // An empty lease, as a moved-from one is: it holds nothing (valid() is false, release()
  // does nothing) and its other accessors throw std::logic_error. What an acquisition's
  // handler gets when there is no lease (Client::acquire_async).
  Lease() noexcept = default;
  // The library's own: Client::acquire makes leases.
  Lease(std::shared_ptr<detail::ClientCore> core, std::shared_ptr<detail::LeaseState> state);
  // Reentry follows the holder. A lease moved within the acquiring thread's stack (into a local
  // std::optional, say) stays that thread's. Moved anywhere else (into a container, a lambda or
  // task that another thread runs) or on another thread, it is handed over: from then on nobody
  // re-enters it (the acquiring thread's next acquisition of the lock waits for it like any
  // other), and current() no longer shows it on the acquiring thread.
  Lease(Lease&& other) noexcept;
  // Releases the lease this one held (as the destructor does), then takes `other`'s.
  Lease& operator=(Lease&& other) noexcept;
  // The library's own move (Relocation): the lease changes place, not holder.
  Lease(Relocation, Lease&& other) noexcept;
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  // Releases the lock without waiting for the server's verdict where the backend allows (Redis,
  // one server or Sentinel): the request has left when it returns, and its reply is read by
  // the client's next command on that connection, or when the client is destroyed. A failure,
  // or a server that no longer held the lease, is reported through the logger (set_logger)
  // then; never thrown. The same thread's next acquisition of this lock goes out after it.
  ~Lease();

  // The lock name, "<type>:<key>".
  const std::string& name() const;
  // The acquisition id: the type, then a hash of the acquisition time; unique per acquisition.
  const std::string& id() const;
  // The server, as in error messages (no password).
  const std::string& server() const;
  // Fencing token: strictly increasing per lock name across all holders. A reentrant
  // acquisition shares the fence of the holder's first acquisition.
  std::uint64_t fence() const;
  // The lease time the lock was taken with (capped, on ZooKeeper, by the session timeout).
  Millis ttl() const;

  // True while the lease is held: not released, not known lost, and the local monotonic
  // clock is before valid_until(). No I/O.
  bool valid() const;
  // Throws LockLost when !valid().
  void ensure_held() const;
  // When the lease stops being valid for sure: the send time of the last granted acquire or
  // renewal, plus ttl, less a drift allowance of 1% of ttl + 2 ms.
  std::chrono::steady_clock::time_point valid_until() const;

  // Called once, on the renewal thread, when a renewal finds the lock gone or the lease
  // runs out before a renewal gets through. Called at once if the lease is already lost;
  // never after release() has returned. Keep it short: it delays the renewal of
  // other leases. It may release leases, and may own them, this one too: if the callback (or
  // what it owns) holds the last owning Lease of the client, the client is closed after the
  // callback has gone, on a thread the library starts for it, since its renewal thread cannot
  // close itself.
  void on_lost(LostCallback callback);

  // Releases now and waits for the server's verdict. Throws LockLost if the server no longer
  // had the lock for this lease (the protected work ran unprotected), BackendUnavailable if it
  // could not be told. A second call does nothing.
  void release();

 private:
  friend class detail::HeldLeases;
  friend class Leadership;  // its StopToken reads the lease's state
  struct Borrowed {};
  // A view that current() hands out: it never releases, and does not keep the client.
  Lease(Borrowed, std::shared_ptr<detail::LeaseState> state);
  // release(), with a failure logged instead of thrown.
  void release_and_log() noexcept;

  // Null in a borrowed view: only the owning Lease keeps the client's core alive, so the
  // core is destroyed by a thread that releases or drops what it owns (client_core.h).
  std::shared_ptr<detail::ClientCore> core_;
  std::shared_ptr<detail::LeaseState> state_;
};

}  // namespace distlock
