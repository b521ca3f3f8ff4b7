// SPDX-License-Identifier: Apache-2.0
// Acquiring a lock from Asio (standalone Asio 1.22 or later, <asio.hpp>): the operation
// async_acquire, for any completion token: asio::use_awaitable in a coroutine, a callback,
// asio::use_future, asio::experimental::deferred.
//
//   distlock::Lease lease = co_await distlock::async_acquire(
//       *client, distlock::spec("order", "30s"), order_id, asio::use_awaitable);
//
// Its signature is void(std::exception_ptr, distlock::Lease): with use_awaitable the lease
// is the co_await's value and a failure is thrown (LockTimeout, BackendUnavailable, ...). The
// completion runs on the handler's executor (a coroutine's own). A cancellation of the
// operation (a cancellation slot bound to the token, or a coroutine's cancellation) withdraws
// the waiter at once, its fair queue place, writer intent or permit request with it, and the
// operation ends with std::system_error(asio::error::operation_aborted). Optional: nothing else
// of distlock needs Asio. Boost.Asio: distlock/boost_asio.h.
#pragma once

#include <asio/associated_cancellation_slot.hpp>
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/cancellation_type.hpp>
#include <asio/error.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/post.hpp>

#if defined(ASIO_HAS_CO_AWAIT)
#include <asio/awaitable.hpp>
#include <asio/use_awaitable.hpp>
#endif

#include <array>
#include <chrono>
#include <cstddef>
#include <exception>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include <distlock/annotation.h>
#include <distlock/async_initiation.h>
#include <distlock/client.h>
#include <distlock/locked_call.h>

namespace distlock {
namespace asio_support {

// Standalone Asio's functions, for AcquireInitiation.
struct StandaloneAsio {
  using system_error = std::system_error;

  template <class Handler>
  static auto executor_of(const Handler& handler) {
    return ::asio::get_associated_executor(handler);
  }
  template <class Handler>
  static auto slot_of(const Handler& handler) {
    return ::asio::get_associated_cancellation_slot(handler);
  }
  template <class Executor>
  static auto work_for(Executor executor) {
    return ::asio::make_work_guard(std::move(executor));
  }
  template <class Executor, class Function>
  static void post(const Executor& executor, Function&& function) {
    ::asio::post(executor, std::forward<Function>(function));
  }
  template <class Slot, class Function>
  static void assign_cancellation(Slot& slot, Function function) {
    slot.assign([function](::asio::cancellation_type) { function(); });
  }
  static std::error_code aborted() { return ::asio::error::operation_aborted; }
};

}  // namespace asio_support

// Acquires `spec`'s lock for `key` as Client::acquire does, without blocking the thread: the
// operation completes when the lock is granted, the spec's wait runs out (LockTimeout), or it
// is cancelled (operation_aborted). `client` must outlive the operation.
template <class CompletionToken>
auto async_acquire(Client& client, const LockSpec& spec, const Key& key, CompletionToken&& token) {
  return ::asio::async_initiate<CompletionToken, void(std::exception_ptr, Lease)>(
      asio_support::AcquireInitiation<asio_support::StandaloneAsio>{}, token, &client, spec, key);
}

#if defined(ASIO_HAS_CO_AWAIT)
// What a woven coroutine's guard names (distlock-weave, for a [[distlock::lock]] on a function
// returning asio::awaitable<T>): its locks taken without blocking the thread, and its result
// when they stay busy.
namespace woven {

// Takes the locks of a call with `keys` as LockedCall does (lock_keys: one, or per_key each in
// lock-name order, all within the one wait), each by async_acquire. When they stay taken past
// the wait: LockTimeout, or with on_busy(skip / fallback) no leases.
template <std::size_t N>
::asio::awaitable<TakenLeases> async_take(LockSpec spec, std::array<Key, N> keys,
                                          Client& client = default_client()) {
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
      taken.leases.push_back(co_await async_acquire(client, each, key, ::asio::use_awaitable));
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
// same result) gives, or a value-initialized one (on_busy(skip)).
template <class Value, class Fallback, class Object, class... Args>
::asio::awaitable<Value> async_busy_result(const Annotation<Fallback>& annotation, Object object,
                                           Args&&... args) {
  if constexpr (!std::is_same_v<Fallback, NoFallback>) {
    co_return co_await busy_result<::asio::awaitable<Value>>(annotation, object,
                                                             std::forward<Args>(args)...);
  } else if constexpr (std::is_void_v<Value>) {
    co_return;
  } else {
    co_return Value();
  }
}

}  // namespace woven
#endif

}  // namespace distlock
