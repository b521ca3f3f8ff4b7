// SPDX-License-Identifier: Apache-2.0
// The watchdog: one thread per client that renews held leases before they expire.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backends/backend.h"
#include "core/event_sink.h"
#include "core/lease_state.h"
#include "core/renewal_schedule.h"
#include "core/stats.h"

namespace distlock::detail {

class RenewalQueue {
 public:
  // The renewal thread's name (at most 15 characters, as Linux allows).
  static constexpr const char* kThreadName = "distlock-renew";

  // Renews each lease once `renew_fraction` of its ttl has passed since its last grant.
  RenewalQueue(Backend& backend, StatsCounters& stats, const EventSink& events,
               double renew_fraction);
  ~RenewalQueue();
  RenewalQueue(const RenewalQueue&) = delete;
  RenewalQueue& operator=(const RenewalQueue&) = delete;

  void add(std::shared_ptr<LeaseState> lease, SteadyClock::time_point granted_at);
  // After this returns, the lease is never renewed again and the queue holds no reference to
  // it: a renewal of it in flight, and its report (its event, or its loss), are waited for;
  // other leases' lost callbacks are not.
  void remove(const LeaseState& lease);
  // Renews every lease now, as when the backend may have lost them all. Thread-safe.
  void renew_all_now();
  // Whether the caller is the renewal thread: in a lost callback, or what its end destroys.
  bool on_its_thread() const { return std::this_thread::get_id() == thread_.get_id(); }

 private:
  using Batch = std::vector<std::shared_ptr<LeaseState>>;

  void run();
  // Renews one batch, reports its losses, and then forgets it. Called and returns with
  // `lock` held.
  void renew(std::unique_lock<std::mutex>& lock, Batch batch);
  Batch take_due(SteadyClock::time_point now);
  // Returns the leases found lost, to be reported outside the lock.
  std::vector<std::pair<std::shared_ptr<LeaseState>, std::string>> settle(
      const Batch& batch, std::vector<RenewItem>& items, SteadyClock::time_point sent_at);
  // The event each lease of the batch reports, a renewal or a failure, if any: for the event
  // hook, which runs outside the lock (it is the service's code).
  std::vector<std::optional<EventKind>> reports_of(const Batch& batch,
                                                   const std::vector<RenewItem>& items) const;
  // Puts the lease granted (or renewed) at `granted_at` on the schedule for its next renewal.
  void schedule_renewal(const LeaseState& lease, SteadyClock::time_point granted_at);

  Backend& backend_;
  StatsCounters& stats_;
  const EventSink& events_;
  const double renew_fraction_;

  std::mutex mutex_;
  std::condition_variable wake_;     // new earlier work, or stop
  std::condition_variable settled_;  // a batch in flight has been settled
  RenewalSchedule schedule_;
  std::unordered_map<std::uint64_t, std::shared_ptr<LeaseState>> leases_;
  std::unordered_set<std::uint64_t> in_flight_;
  SteadyClock::time_point sleeping_until_ = SteadyClock::time_point::min();
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace distlock::detail
