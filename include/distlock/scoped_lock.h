// SPDX-License-Identifier: Apache-2.0
// ScopedLock: a lease held for one scope, taken by hand (woven code declares a LockedCall,
// locked_call.h):
//
//   distlock::ScopedLock guard(distlock::spec("order", 30s), distlock::key_of(user, id));
#pragma once

#include <distlock/client.h>
#include <distlock/key.h>
#include <distlock/lease.h>
#include <distlock/spec.h>

namespace distlock {

// A lease held from construction to the end of the scope.
class ScopedLock {
 public:
  // Acquires the lock of `spec` and `key` on `client` (LockTimeout after the spec's wait).
  ScopedLock(const LockSpec& spec, const Key& key, Client& client = default_client())
      : lease_(client.acquire(spec, key)) {}
  // Acquires the spec's lock without a key: one lock for the type.
  explicit ScopedLock(const LockSpec& spec) : ScopedLock(spec, Key{}) {}

  ScopedLock(const ScopedLock&) = delete;
  ScopedLock& operator=(const ScopedLock&) = delete;

  // The lease held: its fence, its validity.
  const Lease& lease() const { return lease_; }

 private:
  Lease lease_;
};

}  // namespace distlock
