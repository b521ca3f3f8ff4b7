// SPDX-License-Identifier: Apache-2.0
// The releases a Lease leaving its scope does not wait for, on a backend that cannot send one
// without waiting for its reply (Backend::sends_releases_unawaited: etcd, PostgreSQL, Redlock,
// Cluster): each is made by the backend's awaited release on a thread of the client's own, in
// the order they came, so that the thread that left the scope (a woven coroutine's co_return on
// an io_context's thread) goes on at once. Each is reported as a backend's own unawaited release
// is: its outcome, or none with why it could not be made.
//
// The client's next acquisition of a lock whose release is still on its way starts after that
// release: before it, it could find its own owner holding the lock and take the hold over (as
// an orphan of a lost reply), and the release, coming late, would report a loss.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "backends/backend.h"
#include "backends/kept_release.h"
#include "util/steady_clock.h"

namespace distlock::detail {

class UnawaitedReleases {
 public:
  // `backend` must outlive the releases' thread: stop() is called before it goes. `server`, as
  // messages name it, must outlive this.
  UnawaitedReleases(Backend& backend, const std::string& server);
  UnawaitedReleases(const UnawaitedReleases&) = delete;
  UnawaitedReleases& operator=(const UnawaitedReleases&) = delete;
  // As stop(now), when stop() was not called.
  ~UnawaitedReleases();

  // Queues the release; `report` hears its outcome from the releases' thread (at once, on this
  // thread, once stopped). `report` must not throw.
  void release(const ReleaseRequest& request, ReleaseReportHandler report);
  // Whether a release of `lock` is on its way.
  bool releasing(std::string_view lock);
  // Waits until no release of `lock` is on its way; false when `deadline` came first.
  bool wait_until_released(std::string_view lock, SteadyClock::time_point deadline);
  // Runs `start` once no release of `lock` is on its way: now, on this thread, when none is;
  // else on the releases' thread right after the last (or as stop() ends it).
  void start_after_release(std::string_view lock, std::function<void()> start);
  // Makes what is queued until `deadline`, reports the rest as not made, and runs what waits
  // to start; releases queued later are reported at once.
  void stop(SteadyClock::time_point deadline);
  bool on_its_thread() const { return std::this_thread::get_id() == thread_.get_id(); }

 private:
  struct Queued {
    KeptRelease release;
    ReleaseReportHandler report;
  };

  void run();
  // Under mutex_: starts the thread on first need; most clients never need it.
  void start_thread_locked();
  // Under mutex_: one release of `lock` is no longer on its way; what waited for the last one
  // to start is taken out, to run.
  std::vector<std::function<void()>> settled_locked(const std::string& lock);
  void make(const Queued& queued) const;
  void report_not_made(const Queued& queued, const std::string& why) const;

  Backend& backend_;
  const std::string& server_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Queued> queue_;  // under mutex_, as all below but thread_
  // The releases of each lock queued or being made.
  std::map<std::string, int, std::less<>> on_their_way_;
  // What starts once the releases of a lock have been made.
  std::multimap<std::string, std::function<void()>, std::less<>> waiting_starts_;
  std::optional<SteadyClock::time_point> stop_by_;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace distlock::detail
