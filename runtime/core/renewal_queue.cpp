// SPDX-License-Identifier: Apache-2.0
#include "core/renewal_queue.h"

#include <pthread.h>

#include <algorithm>

namespace distlock::detail {
namespace {

// An idle thread looks at the schedule this often, so adding a lease that is due later
// costs no wake-up.
constexpr auto kIdleWake = std::chrono::seconds(1);
constexpr std::size_t kMaxBatch = 512;
constexpr auto kMinRetry = std::chrono::milliseconds(10);
constexpr auto kMaxRetry = std::chrono::milliseconds(1000);
// A lease may be renewed this share of its renewal interval early, so that leases due close
// together share a batch: 100,000 leases of 30 s then take ~20 pipelined batches a second
// rather than 10,000 single renewals (design.md, "Renewal batches"). Early is always safe; it
// costs at most this share more renewals.
constexpr double kEarlyShare = 0.1;

}  // namespace

RenewalQueue::RenewalQueue(Backend& backend, StatsCounters& stats, const EventSink& events,
                           double renew_fraction)
    : backend_(backend),
      stats_(stats),
      events_(events),
      renew_fraction_(renew_fraction),
      thread_([this] { run(); }) {
  // Named here rather than by the thread, so the name is there once the client is: for
  // `top -H`, debuggers and the lifetime tests, which count renewal threads.
  pthread_setname_np(thread_.native_handle(), kThreadName);
}

RenewalQueue::~RenewalQueue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void RenewalQueue::schedule_renewal(const LeaseState& lease, SteadyClock::time_point granted_at) {
  const auto interval = std::chrono::duration_cast<SteadyClock::duration>(
      std::chrono::duration<double, std::milli>(lease.identity().ttl) * renew_fraction_);
  const auto early = std::chrono::duration_cast<SteadyClock::duration>(interval * kEarlyShare);
  schedule_.schedule(lease.serial(), granted_at + interval, granted_at + interval - early);
}

void RenewalQueue::add(std::shared_ptr<LeaseState> lease, SteadyClock::time_point granted_at) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    schedule_renewal(*lease, granted_at);
    wake = schedule_.next_due() < sleeping_until_;
    const auto serial = lease->serial();
    leases_.emplace(serial, std::move(lease));
  }
  if (wake) wake_.notify_one();
}

void RenewalQueue::remove(const LeaseState& lease) {
  std::unique_lock lock(mutex_);
  // On the renewal thread (a lost callback releasing a lease) the batch in flight is this
  // thread's own, already settled: waiting for it would never end.
  if (!on_its_thread()) settled_.wait(lock, [&] { return !in_flight_.contains(lease.serial()); });
  schedule_.erase(lease.serial());
  leases_.erase(lease.serial());
}

void RenewalQueue::renew_all_now() {
  {
    std::lock_guard lock(mutex_);
    const auto now = SteadyClock::now();
    for (const auto& [serial, lease] : leases_)
      if (schedule_.contains(serial)) schedule_.schedule(serial, now);
  }
  wake_.notify_one();
}

RenewalQueue::Batch RenewalQueue::take_due(SteadyClock::time_point now) {
  Batch batch;
  while (batch.size() < kMaxBatch) {
    const auto serial = schedule_.pop_due(now);
    if (!serial) break;
    in_flight_.insert(*serial);
    batch.push_back(leases_.at(*serial));
  }
  return batch;
}

void RenewalQueue::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const auto now = SteadyClock::now();
    Batch batch = take_due(now);
    if (batch.empty()) {
      sleeping_until_ = std::min(schedule_.next_due().value_or(now + kIdleWake), now + kIdleWake);
      wake_.wait_until(lock, sleeping_until_);
      sleeping_until_ = SteadyClock::time_point::min();
      continue;
    }
    renew(lock, std::move(batch));
  }
}

void RenewalQueue::renew(std::unique_lock<std::mutex>& lock, Batch batch) {
  std::vector<RenewItem> items;
  items.reserve(batch.size());
  auto deadline = SteadyClock::time_point::max();
  for (const auto& lease : batch) {
    const auto& identity = lease->identity();
    RenewItem& item = items.emplace_back();
    item.hold = identity.hold();
    item.ttl = identity.ttl;
    deadline = std::min(deadline, lease->valid_until());
  }
  lock.unlock();
  const auto sent_at = SteadyClock::now();
  backend_.renew(items, deadline);
  lock.lock();
  auto lost = settle(batch, items, sent_at);
  const auto reports = reports_of(batch, items);
  std::unordered_set<std::uint64_t> lost_serials;
  for (const auto& [lease, reason] : lost) lost_serials.insert(lease->serial());
  lock.unlock();
  // Each lease leaves the batch once its own renewal is reported, so that remove() waits for
  // no other lease's report, nor for another lease's lost callback: the service may hold, while
  // it removes one lease, a mutex that another lease's callback takes. Its reference goes first
  // (leases_ still holds it until remove()).
  const auto leave = [&](std::shared_ptr<LeaseState>& lease) {
    const auto serial = lease->serial();
    lease.reset();
    lock.lock();
    in_flight_.erase(serial);
    lock.unlock();
    settled_.notify_all();
  };
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (reports[i]) events_.emit(*reports[i], batch[i]->identity().type);
    if (lost_serials.contains(batch[i]->serial())) {
      batch[i].reset();  // `lost` holds it until its loss is reported
      continue;
    }
    leave(batch[i]);
  }
  for (auto& [lease, reason] : lost) {
    if (!lease->lost() && !lease->released()) {
      ++stats_.lost;
      events_.emit(EventKind::lost, lease->identity().type);
      lease->mark_lost(reason);
    }
    leave(lease);
  }
  batch.clear();
  lock.lock();
}

std::vector<std::optional<EventKind>> RenewalQueue::reports_of(
    const Batch& batch, const std::vector<RenewItem>& items) const {
  std::vector<std::optional<EventKind>> reports(batch.size());
  if (!events_.enabled()) return reports;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch[i]->released()) continue;
    if (items[i].outcome == RenewItem::Outcome::renewed)
      reports[i] = EventKind::renewed;
    else if (items[i].outcome == RenewItem::Outcome::failed)
      reports[i] = EventKind::renewal_failed;
  }
  return reports;
}

std::vector<std::pair<std::shared_ptr<LeaseState>, std::string>> RenewalQueue::settle(
    const Batch& batch, std::vector<RenewItem>& items, SteadyClock::time_point sent_at) {
  std::vector<std::pair<std::shared_ptr<LeaseState>, std::string>> lost;
  const auto now = SteadyClock::now();
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto& lease = batch[i];
    if (lease->released()) continue;
    switch (items[i].outcome) {
      case RenewItem::Outcome::renewed:
        ++stats_.renewals;
        lease->extend(sent_at);
        schedule_renewal(*lease, sent_at);
        break;
      case RenewItem::Outcome::lost:
        lost.emplace_back(lease, "a renewal found the lock gone (expired, deleted or taken over)");
        break;
      case RenewItem::Outcome::failed: {
        ++stats_.renewal_failures;
        lease->doubt();
        const auto valid_until = lease->valid_until();
        if (now >= valid_until) {
          lost.emplace_back(lease, "renewals failed until the lease ran out: " + items[i].error);
          break;
        }
        const auto retry =
            std::clamp<SteadyClock::duration>((valid_until - now) / 4, kMinRetry, kMaxRetry);
        schedule_.schedule(lease->serial(), std::min(now + retry, valid_until));
        break;
      }
    }
  }
  return lost;
}

}  // namespace distlock::detail
