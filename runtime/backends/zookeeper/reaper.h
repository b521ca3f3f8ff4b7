// SPDX-License-Identifier: Apache-2.0
// Deletes, in the background, contender nodes nobody waits for any more: the node of a
// waiter that gave up while the server could not be reached, and any node a create whose
// reply was lost may still leave behind. Each is retried until it is gone or its session
// ended (which takes its ephemeral nodes with it), so no orphan blocks a lock.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends/zookeeper/requests.h"
#include "backends/zookeeper/session_keeper.h"

namespace distlock::detail::zookeeper {

class Reaper {
 public:
  Reaper(SessionKeeper& keeper, const Requests& requests);
  ~Reaper();
  Reaper(const Reaper&) = delete;
  Reaper& operator=(const Reaper&) = delete;

  // Deletes `node` of `session`.
  void remove(std::string node, std::int64_t session);
  // From `when` on, deletes every child of `parent` named with `uuid`.
  void sweep(std::string parent, std::string uuid, std::int64_t session,
             SteadyClock::time_point when);

 private:
  struct Job {
    std::string path;  // the node, or the parent to sweep
    std::string uuid;  // empty: delete `path`; else sweep its children named with it
    std::int64_t session = 0;
    SteadyClock::time_point due;
    Millis backoff{0};
  };

  void add(Job job);
  void run();
  // True when the job is done (or moot); false to try again later.
  bool attempt(const Job& job);

  SessionKeeper& keeper_;
  const Requests& requests_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Job> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace distlock::detail::zookeeper
