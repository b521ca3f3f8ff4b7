// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/topology/master_worker.h"

#include <utility>

namespace distlock::detail::redis {

MasterWorker::~MasterWorker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    jobs_.clear();
  }
  posted_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void MasterWorker::post(Job job) {
  {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    jobs_.push_back(std::move(job));
  }
  posted_.notify_one();
}

void MasterWorker::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    posted_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    // What the job holds goes before the lock is taken again.
    job = nullptr;
    lock.lock();
  }
}

}  // namespace distlock::detail::redis
