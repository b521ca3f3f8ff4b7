// SPDX-License-Identifier: Apache-2.0
// LockedCall: the lock of one call of a locked function, as a woven guard declares it at the
// top of the body (by hand it reads the same). It takes the function's lock, or with per_key
// one lock per key in lock-name order; when they stay taken past the wait it throws
// LockTimeout, or with on_busy(skip / fallback) says busy() so that the body does not run;
// on return it releases them, last taken first, and with on_lost(fail) throws LockLost when a
// lease was lost while the body ran.
//
//   distlock::LockedCall call(spec, distlock::keys(from, to));
//   if (call.busy()) return {};
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <distlock/client.h>
#include <distlock/current.h>
#include <distlock/error.h>
#include <distlock/key.h>
#include <distlock/lease.h>
#include <distlock/spec.h>

namespace distlock {

// One key per [[distlock::key]] parameter, in parameter order. Without per_key they are the
// parts of the one lock's key; with it, each names a lock of its own.
template <class... Parts>
std::array<Key, sizeof...(Parts)> keys(const Parts&... parts) {
  return {key_of(parts)...};
}

// The leases an asynchronous acquisition of a call's locks took (async_take in
// distlock/asio.h, for a woven coroutine), in the order taken: none when the locks stayed busy
// and on_busy skips or falls back.
struct TakenLeases {
  std::vector<Lease> leases;  // in the order taken; empty: busy
};

// The lock of one call of a locked function: see the top of this file.
class LockedCall {
 public:
  // Takes the locks of `keys` (one, or per_key one per key) on `client`, as `spec` says.
  template <std::size_t N>
  LockedCall(const LockSpec& spec, const std::array<Key, N>& keys,
             Client& client = default_client())
      : LockedCall(spec, keys.data(), N, client) {}
  // Holds what an asynchronous acquisition of the call's locks took (a woven coroutine's
  // guard): busy() when it took none. Releases them as the other constructor's.
  LockedCall(const LockSpec& spec, TakenLeases taken);
  LockedCall(const LockedCall&) = delete;
  LockedCall& operator=(const LockedCall&) = delete;
  // Releases every lease, last taken first. With on_lost(fail), throws LockLost when one was
  // lost while the call ran, unless an exception is already on its way out of the call.
  // NOLINTNEXTLINE(bugprone-exception-escape): throwing on return is what on_lost(fail) asks
  ~LockedCall() noexcept(false);

  // The locks stayed taken past the wait and the spec's on_busy is skip or fallback: nothing
  // is held, and the body must not run.
  bool busy() const { return !first_.has_value(); }
  // The first lease (per_key: of the lowest lock name); current() returns it inside the call.
  const Lease& lease() const { return *first_; }
  // Every lease of the call, in the order taken (one without per_key).
  std::vector<const Lease*> leases() const;

  // The keys of the locks a call with `keys` takes, in the order it takes them: one key of
  // every part, or with per_key one per distinct key in lock-name order, so that two calls
  // with the same keys in any order cannot deadlock each other.
  static std::vector<Key> lock_keys(const LockSpec& spec, const Key* keys, std::size_t count);

 private:
  LockedCall(const LockSpec& spec, const Key* keys, std::size_t count, Client& client);
  void take_one(const LockSpec& spec, const Key& key, Client& client);
  void take_each(const LockSpec& spec, const std::vector<Key>& locks, Client& client);
  std::optional<LockLost> release_all() noexcept;
  // Last taken first, by each Lease's destructor.
  void drop_all() noexcept;

  // What the destructor needs of the spec: the spec itself may be a temporary that is gone.
  const OnLost on_lost_;
  const int uncaught_at_start_;
  std::optional<Lease> first_;
  std::vector<Lease> more_;  // per_key: the second lease on
};

// The lease of `call` as current() gives it inside a call on a thread: its first lease, or
// nullptr when it is busy. A woven coroutine's lease belongs to no thread: distlock-weave
// rewrites current() in the coroutine's body to this, on the coroutine's own LockedCall.
inline const Lease* current(const LockedCall& call) {
  return call.busy() ? nullptr : &call.lease();
}
// Every lease of `call`, first first, as current_leases() gives them inside a call on a thread:
// what distlock-weave rewrites current_leases() to in a woven coroutine's body.
inline std::vector<const Lease*> current_leases(const LockedCall& call) { return call.leases(); }
// checked(op, undo) on the lease of `call`: what distlock-weave rewrites checked(op, undo) to
// in a woven coroutine's body. Throws ConfigError when `call` is busy.
template <class Op, class Undo>
decltype(auto) checked(const LockedCall& call, Op&& op, Undo&& undo) {
  return detail::checked_on(current(call), std::forward<Op>(op), std::forward<Undo>(undo));
}

}  // namespace distlock
