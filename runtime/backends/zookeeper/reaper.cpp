// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/reaper.h"

#include <algorithm>

#include "backends/zookeeper/lock_nodes.h"
#include "backends/zookeeper/status.h"

namespace distlock::detail::zookeeper {
namespace {

constexpr Millis kFirstRetry{100};
constexpr Millis kMaxRetry{2000};

}  // namespace

Reaper::Reaper(SessionKeeper& keeper, const Requests& requests)
    : keeper_(keeper), requests_(requests), thread_([this] { run(); }) {}

Reaper::~Reaper() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Reaper::remove(std::string node, std::int64_t session) {
  add(Job{std::move(node), "", session, SteadyClock::now(), kFirstRetry});
}

void Reaper::sweep(std::string parent, std::string uuid, std::int64_t session,
                   SteadyClock::time_point when) {
  add(Job{std::move(parent), std::move(uuid), session, when, kFirstRetry});
}

void Reaper::add(Job job) {
  if (job.session == 0) return;
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_all();
}

void Reaper::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const auto now = SteadyClock::now();
    std::vector<Job> due;
    auto next = SteadyClock::time_point::max();
    for (auto job = jobs_.begin(); job != jobs_.end();) {
      if (job->due <= now) {
        due.push_back(std::move(*job));
        job = jobs_.erase(job);
      } else {
        next = std::min(next, job->due);
        ++job;
      }
    }
    if (due.empty()) {
      if (next == SteadyClock::time_point::max())
        wake_.wait(lock);
      else
        wake_.wait_until(lock, next);
      continue;
    }
    lock.unlock();
    std::vector<Job> again;
    for (auto& job : due) {
      if (attempt(job)) continue;
      job.due = SteadyClock::now() + job.backoff;
      job.backoff = std::min(job.backoff * 2, kMaxRetry);
      again.push_back(std::move(job));
    }
    lock.lock();
    for (auto& job : again) jobs_.push_back(std::move(job));
  }
}

bool Reaper::attempt(const Job& job) {
  const auto session = keeper_.current();
  // Another session now: the job's session ended, and its ephemeral nodes with it.
  if (!session || session->id() != job.session || session->dead()) return true;
  if (!session->ready()) return false;

  // Only a connection problem is worth another try: gone is done, and a refusal (no access)
  // would be refused again.
  if (job.uuid.empty()) return !status::connection_trouble(requests_.remove(*session, job.path).rc);
  const auto listed = requests_.children(*session, job.path);
  if (listed.rc != ZOK) return !status::connection_trouble(listed.rc);
  bool done = true;
  for (const auto& child : listed.children) {
    if (!named_with_uuid(child, job.uuid)) continue;
    if (status::connection_trouble(requests_.remove(*session, job.path + "/" + child).rc))
      done = false;
  }
  return done;
}

}  // namespace distlock::detail::zookeeper
