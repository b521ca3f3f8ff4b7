// SPDX-License-Identifier: Apache-2.0
#include "core/async_executor.h"

#include <pthread.h>

#include <utility>

namespace distlock::detail {

AsyncExecutor::~AsyncExecutor() { stop(); }

void AsyncExecutor::stop() {
  std::deque<Task> dropped_tasks;
  Timers dropped_timers;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  {
    std::lock_guard lock(mutex_);
    dropped_tasks.swap(tasks_);
    dropped_timers.swap(timers_);
    timer_places_.clear();
  }
  // Destroyed without the lock: what a task owns may post as it goes, and that post is dropped.
}

void AsyncExecutor::start_if_needed() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] {
    thread_id_.store(std::this_thread::get_id());
    ::pthread_setname_np(::pthread_self(), kThreadName);
    run();
  });
}

void AsyncExecutor::post(Task task) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    start_if_needed();
    tasks_.push_back(std::move(task));
    posts_.fetch_add(1, std::memory_order_release);
  }
  changed_.notify_one();
}

AsyncExecutor::TimerId AsyncExecutor::post_at(SteadyClock::time_point when, Task task) {
  TimerId id = 0;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return id;
    start_if_needed();
    id = next_timer_++;
    timer_places_.emplace(id, timers_.emplace(when, std::make_pair(id, std::move(task))));
  }
  changed_.notify_one();
  return id;
}

void AsyncExecutor::cancel(TimerId timer) {
  std::lock_guard lock(mutex_);
  const auto found = timer_places_.find(timer);
  if (found == timer_places_.end()) return;
  timers_.erase(found->second);
  timer_places_.erase(found);
}

void AsyncExecutor::look_for_posts() const {
  const std::uint64_t seen = posts_.load(std::memory_order_acquire);
  const auto until = SteadyClock::now() + kLookBeforeSleep;
  do {
    if (posts_.load(std::memory_order_acquire) != seen) return;
    // Another thread that wants this core gets it meanwhile.
    std::this_thread::yield();
  } while (SteadyClock::now() < until);
}

void AsyncExecutor::run() {
  std::unique_lock lock(mutex_);
  // Whether the thread ran a task since it last slept or looked for one.
  bool busy = false;
  while (!stopping_) {
    if (!tasks_.empty()) {
      Task task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      // What the task owned goes before the lock is taken again: a destructor may post.
      task = nullptr;
      lock.lock();
      busy = true;
      continue;
    }
    if (!timers_.empty() && timers_.begin()->first <= SteadyClock::now()) {
      auto due = timers_.begin();
      timer_places_.erase(due->second.first);
      tasks_.push_back(std::move(due->second.second));
      timers_.erase(due);
      continue;
    }
    if (busy) {
      busy = false;
      lock.unlock();
      look_for_posts();
      lock.lock();
      // Looked at under the lock again: a task posted just after the look wakes nobody.
      continue;
    }
    if (timers_.empty()) {
      changed_.wait(lock);
    } else {
      // A copy: the first timer may be cancelled (erased) while this waits.
      const SteadyClock::time_point next = timers_.begin()->first;
      changed_.wait_until(lock, next);
    }
  }
}

}  // namespace distlock::detail
