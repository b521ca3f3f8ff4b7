// SPDX-License-Identifier: Apache-2.0
// Acquiring a lock from Asio (standalone Asio 1.22 or later, <asio.hpp>): the operations
// async_acquire and async_campaign (an election's, distlock/election.h), for any completion token:
// asio::use_awaitable in a coroutine, a callback, asio::use_future, asio::experimental::deferred.
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

#include <distlock/woven_coroutine.h>
#endif

#include <array>
#include <cstddef>
#include <exception>
#include <system_error>
#include <utility>

#include <distlock/annotation.h>
#include <distlock/async_initiation.h>
#include <distlock/client.h>
#include <distlock/locked_call.h>

namespace distlock {
namespace asio_detail {

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

}  // namespace asio_detail

// Acquires `spec`'s lock for `key` as Client::acquire does, without blocking the thread: the
// operation completes when the lock is granted, the spec's wait runs out (LockTimeout), or it
// is cancelled (operation_aborted), as it is when the client's last owner goes meanwhile: a
// waiting operation does not keep the client, or the io_context's run(), going.
template <class CompletionToken>
auto async_acquire(Client& client, const LockSpec& spec, const Key& key, CompletionToken&& token) {
  return ::asio::async_initiate<CompletionToken, void(std::exception_ptr, Lease)>(
      asio_detail::AcquireInitiation<asio_detail::StandaloneAsio>{}, token,
      asio_detail::AcquireStart{&client, spec, key});
}

// Campaigns in `election` as Client::campaign does, without blocking the thread: the operation
// completes with the term when elected, LockTimeout when the election's wait runs out, or
// operation_aborted when cancelled, as async_acquire does. Its signature is
// void(std::exception_ptr, distlock::Leadership).
template <class CompletionToken>
auto async_campaign(Client& client, const ElectionSpec& election, CompletionToken&& token) {
  return ::asio::async_initiate<CompletionToken, void(std::exception_ptr, Leadership)>(
      asio_detail::AcquireInitiation<asio_detail::StandaloneAsio>{}, token,
      asio_detail::CampaignStart{&client, election});
}

#if defined(ASIO_HAS_CO_AWAIT)
namespace asio_detail {

// Standalone Asio's coroutines, for woven_coroutine.h.
struct StandaloneAsioCoroutines {
  template <class T>
  using Awaitable = ::asio::awaitable<T>;
  static Awaitable<Lease> acquire(Client& client, const LockSpec& spec, const Key& key) {
    return async_acquire(client, spec, key, ::asio::use_awaitable);
  }
};

}  // namespace asio_detail

// What a woven coroutine's guard names (distlock-weave, for a [[distlock::lock]] on a function
// returning asio::awaitable<T>): its locks taken without blocking the thread, and its result
// when they stay busy (woven_coroutine.h).
namespace woven {

template <std::size_t N>
::asio::awaitable<TakenLeases> async_take(LockSpec spec, std::array<Key, N> keys,
                                          Client& client = default_client()) {
  return woven_coroutine::take<asio_detail::StandaloneAsioCoroutines>(spec, keys, client);
}

template <class Value, class Fallback, class Object, class... Args>
::asio::awaitable<Value> async_busy_result(const Annotation<Fallback>& annotation, Object object,
                                           Args&&... args) {
  return woven_coroutine::busy_result<asio_detail::StandaloneAsioCoroutines, Value>(
      annotation, object, std::forward<Args>(args)...);
}

}  // namespace woven
#endif

}  // namespace distlock
