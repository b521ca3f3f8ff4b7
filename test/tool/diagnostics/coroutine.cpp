// A coroutine of a type the weaver cannot await in (a generator, an unknown task type) is
// refused, naming the kinds it weaves and the way out.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 2>&1 | FileCheck %s

#include <coroutine>

struct Task {
  struct promise_type {
    Task get_return_object() { return {}; }
    std::suspend_never initial_suspend() { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() {}
  };
};

// CHECK: coroutine.cpp:[[@LINE+1]]:3: error: 'distlock::lock' on a coroutine returning 'Task', which distlock-weave cannot await in: it weaves coroutines returning asio::awaitable<T> or boost::asio::awaitable<T>; for another kind, take the lock inside with Client::acquire_async
[[distlock::lock("stream", 1000)]] Task pump() { co_return; }
