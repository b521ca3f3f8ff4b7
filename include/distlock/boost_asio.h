// SPDX-License-Identifier: Apache-2.0
// Acquiring a lock from Boost.Asio (Boost 1.74 or later): distlock::boost_asio::async_acquire,
// the operation of distlock/asio.h for Boost.Asio's completion tokens
// (boost::asio::use_awaitable in a coroutine, a callback, boost::asio::use_future), with the
// same signature, void(std::exception_ptr, distlock::Lease), and the same completion on the
// handler's executor.
//
//   distlock::Lease lease = co_await distlock::boost_asio::async_acquire(
//       *client, distlock::spec("order", "30s"), order_id, boost::asio::use_awaitable);
//
// Boost 1.77 and later have per-operation cancellation: a cancellation withdraws the waiter
// and ends the operation with boost::system::system_error(operation_aborted). Boost 1.74
// (Debian 12's libboost-dev) has none: cancel a wait through Client::acquire_async's
// AsyncAcquisition instead. Optional: nothing else of distlock needs Boost.
#pragma once

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/system/system_error.hpp>
#include <boost/version.hpp>

#if BOOST_VERSION >= 107700
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/cancellation_type.hpp>
#endif

#if defined(BOOST_ASIO_HAS_CO_AWAIT)
#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <distlock/woven_coroutine.h>
#endif

#include <array>
#include <cstddef>
#include <exception>
#include <utility>

#include <distlock/annotation.h>
#include <distlock/async_initiation.h>
#include <distlock/client.h>
#include <distlock/locked_call.h>

namespace distlock {
namespace asio_detail {

// Boost.Asio's functions, for AcquireInitiation.
struct BoostAsio {
  using system_error = ::boost::system::system_error;

#if BOOST_VERSION < 107700
  // No per-operation cancellation before Boost 1.77: a slot that is never connected.
  struct NoCancellationSlot {
    bool is_connected() const { return false; }
    void clear() {}
  };
  template <class Handler>
  static NoCancellationSlot slot_of(const Handler&) {
    return {};
  }
  template <class Function>
  static void assign_cancellation(NoCancellationSlot&, Function) {}
#else
  template <class Handler>
  static auto slot_of(const Handler& handler) {
    return ::boost::asio::get_associated_cancellation_slot(handler);
  }
  template <class Slot, class Function>
  static void assign_cancellation(Slot& slot, Function function) {
    slot.assign([function](::boost::asio::cancellation_type) { function(); });
  }
#endif
  template <class Handler>
  static auto executor_of(const Handler& handler) {
    return ::boost::asio::get_associated_executor(handler);
  }
  template <class Executor>
  static auto work_for(Executor executor) {
    return ::boost::asio::make_work_guard(std::move(executor));
  }
  template <class Executor, class Function>
  static void post(const Executor& executor, Function&& function) {
    ::boost::asio::post(executor, std::forward<Function>(function));
  }
  static ::boost::system::error_code aborted() { return ::boost::asio::error::operation_aborted; }
};

}  // namespace asio_detail

namespace boost_asio {

// As distlock::async_acquire (distlock/asio.h), for Boost.Asio's completion tokens.
template <class CompletionToken>
auto async_acquire(Client& client, const LockSpec& spec, const Key& key, CompletionToken&& token) {
  return ::boost::asio::async_initiate<CompletionToken, void(std::exception_ptr, Lease)>(
      asio_detail::AcquireInitiation<asio_detail::BoostAsio>{}, token,
      asio_detail::AcquireStart{&client, spec, key});
}

// As distlock::async_campaign (distlock/asio.h), for Boost.Asio's completion tokens.
template <class CompletionToken>
auto async_campaign(Client& client, const ElectionSpec& election, CompletionToken&& token) {
  return ::boost::asio::async_initiate<CompletionToken, void(std::exception_ptr, Leadership)>(
      asio_detail::AcquireInitiation<asio_detail::BoostAsio>{}, token,
      asio_detail::CampaignStart{&client, election});
}

}  // namespace boost_asio

#if defined(BOOST_ASIO_HAS_CO_AWAIT)
namespace asio_detail {

// Boost.Asio's coroutines, for woven_coroutine.h.
struct BoostAsioCoroutines {
  template <class T>
  using Awaitable = ::boost::asio::awaitable<T>;
  static Awaitable<Lease> acquire(Client& client, const LockSpec& spec, const Key& key) {
    return boost_asio::async_acquire(client, spec, key, ::boost::asio::use_awaitable);
  }
};

}  // namespace asio_detail

// What a woven Boost.Asio coroutine's guard names (distlock-weave, for a [[distlock::lock]] on
// a function returning boost::asio::awaitable<T>; woven_coroutine.h).
namespace woven {

template <std::size_t N>
::boost::asio::awaitable<TakenLeases> boost_async_take(LockSpec spec, std::array<Key, N> keys,
                                                       Client& client = default_client()) {
  return woven_coroutine::take<asio_detail::BoostAsioCoroutines>(spec, keys, client);
}

template <class Value, class Fallback, class Object, class... Args>
::boost::asio::awaitable<Value> boost_async_busy_result(const Annotation<Fallback>& annotation,
                                                        Object object, Args&&... args) {
  return woven_coroutine::busy_result<asio_detail::BoostAsioCoroutines, Value>(
      annotation, object, std::forward<Args>(args)...);
}

}  // namespace woven
#endif

}  // namespace distlock
