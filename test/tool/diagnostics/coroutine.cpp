// A coroutine would hold the lock across suspensions.
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

// CHECK: coroutine.cpp:[[@LINE+1]]:3: error: 'distlock::lock' on a coroutine: the lock would be held across suspensions, on whatever thread resumes it; lock around the co_await instead
[[distlock::lock("stream", 1000)]] Task pump() { co_return; }
