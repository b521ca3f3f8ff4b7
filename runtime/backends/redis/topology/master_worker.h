// SPDX-License-Identifier: Apache-2.0
// A Redlock master's own thread, for the calls a round makes on every master at once (the
// renewals): a master that does not answer then holds up its own call only, not the others' in
// turn, and a round that has heard from a majority goes on without it.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace distlock::detail::redis {

class MasterWorker {
 public:
  using Job = std::function<void()>;

  MasterWorker() = default;
  // Waits for the job running, if any; the jobs not started are dropped.
  ~MasterWorker();
  MasterWorker(const MasterWorker&) = delete;
  MasterWorker& operator=(const MasterWorker&) = delete;

  // Runs `job` on the worker's thread after the jobs posted before it; the thread starts with
  // the first job. `job` must not throw. Throws std::system_error when the thread cannot start.
  void post(Job job);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable posted_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace distlock::detail::redis
