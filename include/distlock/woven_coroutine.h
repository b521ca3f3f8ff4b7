// SPDX-License-Identifier: Apache-2.0
// What distlock/asio.h and distlock/boost_asio.h share for a woven coroutine's guard (C++20
// coroutines): a call's locks taken by awaiting each, and the call's result when they stay
// busy. `Flavour` names its Asio: `Awaitable<T>`, its awaitable type, and acquire(client, spec,
// key), an awaitable of the Lease (async_acquire with use_awaitable).
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include <distlock/annotation.h>
#include <distlock/client.h>
#include <distlock/locked_call.h>

namespace distlock::woven_coroutine {

// Takes the locks of a call with `keys` as LockedCall does (lock_keys: one, or per_key each in
// lock-name order, all within the one wait). When they stay taken past the wait: LockTimeout,
// or with on_busy(skip / fallback) no leases.
template <class Flavour, std::size_t N>
typename Flavour::template Awaitable<TakenLeases> take(LockSpec spec, std::array<Key, N> keys,
                                                       Client& client) {
  const std::vector<Key> locks = LockedCall::lock_keys(spec, keys.data(), N);
  const auto start = std::chrono::steady_clock::now();
  TakenLeases taken;
  taken.leases.reserve(locks.size());
  LockSpec each = spec;
  bool busy = false;
  for (const Key& key : locks) {
    if (spec.wait != kWaitForever && spec.wait > Millis::zero()) {
      const auto spent =
          std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now() - start);
      each.wait = spec.wait > spent ? spec.wait - spent : Millis::zero();
    }
    try {
      taken.leases.push_back(co_await Flavour::acquire(client, each, key));
    } catch (const LockTimeout&) {
      if (spec.on_busy == OnBusy::raise) throw;
      busy = true;
    }
    if (busy) break;
  }
  // The leases taken before the busy one are released as `taken` goes.
  if (busy) co_return TakenLeases{};
  co_return taken;
}

// A woven coroutine's result when its locks stayed busy: what the fallback (a coroutine of the
// same type) gives, or a value-initialized one (on_busy(skip)).
template <class Flavour, class Value, class Fallback, class Object, class... Args>
typename Flavour::template Awaitable<Value> busy_result(const Annotation<Fallback>& annotation,
                                                        Object object, Args&&... args) {
  if constexpr (!std::is_same_v<Fallback, NoFallback>) {
    co_return co_await ::distlock::busy_result<typename Flavour::template Awaitable<Value>>(
        annotation, object, std::forward<Args>(args)...);
  } else if constexpr (std::is_void_v<Value>) {
    co_return;
  } else {
    co_return Value();
  }
}

}  // namespace distlock::woven_coroutine
