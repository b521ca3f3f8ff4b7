// SPDX-License-Identifier: Apache-2.0
// A meeting point for threads inside a lock: when `expected` threads are inside at once, they
// all meet. A lock that keeps them apart makes the meeting time out instead, so an example
// proves that a lock is shared without timing anything.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

class Meeting {
 public:
  explicit Meeting(int expected) : expected_(expected) {}

  // True once `expected` threads have arrived, false if they did not within `limit`.
  bool arrive_and_wait(std::chrono::seconds limit) {
    std::unique_lock<std::mutex> lock(mutex_);
    ++arrived_;
    everyone_arrived_.notify_all();
    return everyone_arrived_.wait_for(lock, limit, [&] { return arrived_ >= expected_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable everyone_arrived_;
  const int expected_;
  int arrived_ = 0;
};
