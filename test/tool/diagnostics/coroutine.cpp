// In a woven coroutine's body, current() or checked(op, undo) in a lambda or local class is a
// warning (only the body's own calls see its lease), and a call that takes a lock of the
// coroutine's own type again is an error (its lease is not re-entered: the call would wait for
// the coroutine itself). A coroutine of a type the weaver cannot await in (a generator, an
// unknown task type) is refused, naming the kinds it weaves and the way out. (After an error,
// the weaver weaves no more functions: the warning comes first.)
// asio::awaitable is a stand-in here (Inputs/stand_in_awaitable.h).
// RUN: not %weave %s -o %t.cpp -- %flags -std=c++20 -I%inputs 2>&1 | FileCheck %s --implicit-check-not="{{error|warning}}:"

#include <coroutine>

#include <distlock/current.h>
#include <stand_in_awaitable.h>

struct Task {
  struct promise_type {
    Task get_return_object() { return {}; }
    std::suspend_never initial_suspend() { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() {}
  };
};

[[distlock::lock("report", 1000)]]
asio::awaitable<int> report([[distlock::key]] int id) {
  // CHECK: coroutine.cpp:[[@LINE+1]]:34: warning: 'distlock::current' in a lambda or local class of the woven coroutine 'report' sees this thread's lease, not the coroutine's: a coroutine's lease belongs to no thread, and only calls in its own body are pointed at it; call it in the body and capture what it returns
  auto lease_later = [] { return distlock::current(); };
  struct Step {
    // CHECK: coroutine.cpp:[[@LINE+1]]:24: warning: 'distlock::checked' in a lambda or local class of the woven coroutine 'report' sees this thread's lease, not the coroutine's: {{.*}}; capture distlock::current() from the body and call distlock::checked(*lease, op, undo)
    int run() { return distlock::checked([] { return 1; }, [] {}); }
  };
  // What the warnings advise: taken in the body, captured.
  auto lease_now = [lease = distlock::current()] { return lease; };
  co_return lease_later() == lease_now() ? Step().run() : 0;
}

[[distlock::lock("order", 1000)]] asio::awaitable<int> load([[distlock::key]] int id);
[[distlock::lock("order", 1000)]] int count([[distlock::key]] int id);
[[distlock::lock("audit", 1000)]] asio::awaitable<int> audit([[distlock::key]] int id);

[[distlock::lock("order", 1000)]]
asio::awaitable<int> reserve([[distlock::key]] int id) {
  // CHECK: coroutine.cpp:[[@LINE+2]]:22: error: 'reserve' holds its lock of type "order" and awaits 'load', which takes a lock of that type: a coroutine's lease belongs to no thread and is not re-entered, so with the same key the await would wait for the coroutine itself until the spec's wait runs out; do that work in a function without {{\[\[}}distlock::lock]], or await 'load' before or after 'reserve' rather than inside it
  // CHECK: coroutine.cpp:{{[0-9]+}}:3: note: 'load' takes its lock here
  const int loaded = co_await load(id);
  // CHECK: coroutine.cpp:[[@LINE+1]]:23: error: 'reserve' holds its lock of type "order" and calls 'count', which takes a lock of that type on this thread: {{.*}}; do that work in a function without {{\[\[}}distlock::lock]], or call 'count' before or after 'reserve' rather than inside it
  const int counted = count(id);
  // Another type, and a coroutine not awaited here, take no lock inside this one.
  const int audited = co_await audit(id);
  asio::awaitable<int> later = load(id);
  co_return loaded + counted + audited;
}

// CHECK: coroutine.cpp:[[@LINE+1]]:3: error: 'distlock::lock' on a coroutine returning 'Task', which distlock-weave cannot await in: it weaves coroutines returning asio::awaitable<T> or boost::asio::awaitable<T>; for another kind, take the lock inside with Client::acquire_async
[[distlock::lock("stream", 1000)]] Task pump() { co_return; }
