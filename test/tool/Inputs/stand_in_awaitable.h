// SPDX-License-Identifier: Apache-2.0
// A stand-in for Asio's awaitable<T>, which the weaver knows by its name: tests of what the
// weaver reports about woven coroutines need no Asio. Nothing woven with it is compiled.
#pragma once

#include <coroutine>

namespace asio {

template <class T>
class awaitable {
 public:
  struct promise_type {
    awaitable get_return_object() { return {}; }
    std::suspend_never initial_suspend() { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_value(T) {}
    void unhandled_exception() {}
  };
  bool await_ready() { return true; }
  void await_suspend(std::coroutine_handle<>) {}
  T await_resume() { return T(); }
};

}  // namespace asio
