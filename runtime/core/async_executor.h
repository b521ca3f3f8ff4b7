// SPDX-License-Identifier: Apache-2.0
// The thread that drives a client's asynchronous acquisitions (Client::acquire_async): tasks
// run in the order posted, timers at their time, and the handlers of finished acquisitions,
// so that none runs inline in the caller or while a backend holds a lock. One thread per
// client, started by the first asynchronous acquisition, whatever the number of waiters: a
// waiter is a task that a release or a timer posts, never a thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "util/steady_clock.h"

namespace distlock::detail {

class AsyncExecutor {
 public:
  using Task = std::function<void()>;
  using TimerId = std::uint64_t;

  // The thread's name (at most 15 characters, as Linux allows).
  static constexpr const char* kThreadName = "distlock-async";
  // How long the thread, once out of tasks, looks for the next one before it sleeps. A
  // coroutine that a handler resumed asks again within microseconds, and a post that finds the
  // thread awake wakes nobody: waking a sleeping thread (the futex call and the scheduler's
  // latency) is most of what an asynchronous cycle costs beyond a blocking one.
  static constexpr std::chrono::microseconds kLookBeforeSleep{50};

  AsyncExecutor() = default;
  // stop()s.
  ~AsyncExecutor();
  AsyncExecutor(const AsyncExecutor&) = delete;
  AsyncExecutor& operator=(const AsyncExecutor&) = delete;

  // Runs no more tasks or timers (never called from one): waits for the one running, drops
  // those left unrun, and drops what is posted from now on. Separate from the destructor so
  // that an owner can stop the thread, whose tasks use what the owner holds, and still keep
  // the executor alive while others that may post to it (a store client's callback threads)
  // go.
  void stop();
  // Runs `task` on the thread, after the tasks posted before it. Thread-safe; never runs it
  // inline; drops it once stopped. Throws std::system_error when the thread cannot be started.
  void post(Task task);
  // Runs `task` on the thread at `when` (at once if it has passed), unless cancelled first.
  // Once stopped, drops it and returns an id that cancels nothing.
  TimerId post_at(SteadyClock::time_point when, Task task);
  // The timer's task will not run, unless it has started already.
  void cancel(TimerId timer);
  bool on_its_thread() const { return std::this_thread::get_id() == thread_id_.load(); }

 private:
  using Timers = std::multimap<SteadyClock::time_point, std::pair<TimerId, Task>>;

  void start_if_needed();
  void run();
  // Returns once a task is posted, or after kLookBeforeSleep; looks without the lock.
  void look_for_posts() const;

  // The thread's id, read without the lock by on_its_thread(): the thread object is assigned
  // under it, when the first post starts the thread, perhaps as the owner's last owner goes.
  std::atomic<std::thread::id> thread_id_{};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::atomic<std::uint64_t> posts_{0};
  std::deque<Task> tasks_;
  Timers timers_;
  std::unordered_map<TimerId, Timers::iterator> timer_places_;
  TimerId next_timer_ = 1;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace distlock::detail
