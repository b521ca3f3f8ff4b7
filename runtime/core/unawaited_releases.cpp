// SPDX-License-Identifier: Apache-2.0
#include "core/unawaited_releases.h"

#include <exception>
#include <utility>

namespace distlock::detail {

UnawaitedReleases::UnawaitedReleases(Backend& backend, const std::string& server)
    : backend_(backend), server_(server) {}

UnawaitedReleases::~UnawaitedReleases() { stop(SteadyClock::now()); }

void UnawaitedReleases::release(const ReleaseRequest& request, ReleaseReportHandler report) {
  Queued queued{KeptRelease(request), std::move(report)};
  std::unique_lock lock(mutex_);
  if (stopped_) {
    lock.unlock();
    report_not_made(queued, "the client closed first");
    return;
  }
  ++on_their_way_[queued.release.lock()];
  queue_.push_back(std::move(queued));
  start_thread_locked();
  changed_.notify_all();
}

bool UnawaitedReleases::releasing(std::string_view lock) {
  const std::lock_guard guard(mutex_);
  return on_their_way_.find(lock) != on_their_way_.end();
}

bool UnawaitedReleases::wait_until_released(std::string_view lock,
                                            SteadyClock::time_point deadline) {
  std::unique_lock guard(mutex_);
  return changed_.wait_until(guard, deadline,
                             [&] { return on_their_way_.find(lock) == on_their_way_.end(); });
}

void UnawaitedReleases::start_after_release(std::string_view lock, std::function<void()> start) {
  {
    const std::lock_guard guard(mutex_);
    if (on_their_way_.find(lock) != on_their_way_.end()) {
      waiting_starts_.emplace(std::string(lock), std::move(start));
      return;
    }
  }
  start();
}

void UnawaitedReleases::stop(SteadyClock::time_point deadline) {
  {
    const std::lock_guard guard(mutex_);
    if (stopped_) return;
    stopped_ = true;
    stop_by_ = deadline;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void UnawaitedReleases::start_thread_locked() {
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
}

void UnawaitedReleases::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return !queue_.empty() || stop_by_; });
    if (queue_.empty()) return;
    const Queued queued = std::move(queue_.front());
    queue_.pop_front();
    const bool too_late = stop_by_ && SteadyClock::now() >= *stop_by_;
    lock.unlock();
    if (too_late)
      report_not_made(queued, "the client closed before it could be made");
    else
      make(queued);
    lock.lock();
    std::vector<std::function<void()>> starts = settled_locked(queued.release.lock());
    changed_.notify_all();
    if (starts.empty()) continue;
    lock.unlock();
    for (const auto& start : starts) start();
    lock.lock();
  }
}

std::vector<std::function<void()>> UnawaitedReleases::settled_locked(const std::string& lock) {
  const auto found = on_their_way_.find(lock);
  if (--found->second > 0) return {};
  on_their_way_.erase(found);
  std::vector<std::function<void()>> starts;
  const auto [first, last] = waiting_starts_.equal_range(lock);
  for (auto waiting = first; waiting != last; ++waiting)
    starts.push_back(std::move(waiting->second));
  waiting_starts_.erase(first, last);
  return starts;
}

void UnawaitedReleases::make(const Queued& queued) const {
  ReleaseReport made;
  try {
    made.outcome = backend_.release(queued.release.request());
  } catch (const std::exception& error) {
    made.failure = error.what();
  }
  queued.report(made);
}

void UnawaitedReleases::report_not_made(const Queued& queued, const std::string& why) const {
  queued.report({std::nullopt, "the lock '" + queued.release.lock() + "' on " + server_ +
                                   " was not released: " + why});
}

}  // namespace distlock::detail
