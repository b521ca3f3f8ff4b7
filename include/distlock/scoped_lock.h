// ScopedLock: a lease held for one scope. Woven code declares one at the top of each
// annotated function; by hand it reads
//
//   distlock::ScopedLock guard(distlock::spec("order", 30s), distlock::key_of(user, id));
#pragma once

#include <distlock/client.h>
#include <distlock/key.h>
#include <distlock/lease.h>
#include <distlock/spec.h>

namespace distlock {

class ScopedLock {
 public:
  ScopedLock(const LockSpec& spec, const Key& key, Client& client = default_client())
      : lease_(client.acquire(spec, key)) {}
  explicit ScopedLock(const LockSpec& spec) : ScopedLock(spec, Key{}) {}

  ScopedLock(const ScopedLock&) = delete;
  ScopedLock& operator=(const ScopedLock&) = delete;

  const Lease& lease() const { return lease_; }

 private:
  Lease lease_;
};

}  // namespace distlock
