// SPDX-License-Identifier: Apache-2.0
// The reads of the asynchronous acquisitions' attempts (async_waiter.h) on the connection the
// lock commands share, one for many: an attempt's script is written as its step runs on the
// client's async executor, and the first attempt written since the last read posts the next
// read behind the steps queued already. Every waiter whose step comes up meanwhile writes its
// attempt first, and one round trip answers them all, where the executor's thread would
// otherwise wait out a round trip per attempt before it writes the next: 64 coroutines on one
// thread then ask as fast as 64 threads would.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "backends/redis/transport/shared_connection.h"
#include "core/async_executor.h"

namespace distlock::detail::redis {

class AttemptPipeline {
 public:
  // Everything is done on `executor`'s thread, which must outlive the pipeline.
  explicit AttemptPipeline(AsyncExecutor& executor) : executor_(executor) {}
  AttemptPipeline(const AttemptPipeline&) = delete;
  AttemptPipeline& operator=(const AttemptPipeline&) = delete;

  AsyncExecutor& executor() const { return executor_; }
  // An attempt went out on `connection`: its reply will be read.
  void sent(const std::shared_ptr<SharedConnection>& connection);
  // What an attempt came to reached the executor: its reply, or the word that none will come.
  void settled() { --unsettled_; }

 private:
  void read();

  AsyncExecutor& executor_;
  // The connections written on since the last read (more than one when one broke meanwhile).
  std::vector<std::shared_ptr<SharedConnection>> unread_;
  std::size_t unsettled_ = 0;
  bool read_posted_ = false;
};

}  // namespace distlock::detail::redis
