// SPDX-License-Identifier: Apache-2.0
#include "backends/memory/lock_table.h"

#include "backends/memory/async_contender.h"

namespace distlock::detail::memory {

std::optional<Grant> LockTable::acquire(const AcquireRequest& request, StatsCounters& stats) {
  const std::string name(request.hold.name);
  std::unique_lock lock(mutex_);
  NamedLocks& locks = locks_[name];
  TableAccess table{lock, last_fence_, stats};
  const std::optional<Grant> grant = take_or_wait(table, locks.contest(request), request.deadline);
  if (!grant) forget_if_idle(name, SteadyClock::now());
  return grant;
}

ReleaseOutcome LockTable::release(const ReleaseRequest& request) {
  const std::string name(request.hold.name);
  std::lock_guard lock(mutex_);
  const auto found = locks_.find(name);
  if (found == locks_.end()) return ReleaseOutcome::not_held;
  NamedLocks& locks = found->second;
  const auto now = SteadyClock::now();
  const LockKind& kind = request.hold.kind;
  ReleaseOutcome outcome;
  if (kind.semaphore())
    outcome = locks.semaphore.release(request, now);
  else if (kind.mode != Mode::exclusive)
    outcome = locks.read_write.release(request, now);
  else
    outcome = locks.exclusive.release(request, now);
  forget_if_idle(name, now);
  return outcome;
}

void LockTable::renew(std::span<RenewItem> items) {
  std::lock_guard lock(mutex_);
  const auto now = SteadyClock::now();
  for (auto& item : items) {
    const HoldId& hold = item.hold;
    const auto found = locks_.find(std::string(hold.name));
    bool renewed = false;
    if (found != locks_.end()) {
      NamedLocks& locks = found->second;
      if (hold.kind.semaphore())
        renewed = locks.semaphore.renew(hold, item.ttl, now);
      else if (hold.kind.mode != Mode::exclusive)
        renewed = locks.read_write.renew(hold, item.ttl, now);
      else
        renewed = locks.exclusive.renew(hold, item.ttl, now);
    }
    item.outcome = renewed ? RenewItem::Outcome::renewed : RenewItem::Outcome::lost;
  }
}

std::shared_ptr<PendingAcquisition> LockTable::acquire_async(const AcquireRequest& request,
                                                             StatsCounters& stats,
                                                             AsyncExecutor& executor,
                                                             AcquireCompletion done) {
  auto contender = std::make_shared<AsyncContender>(shared_from_this(), request, stats, executor,
                                                    std::move(done));
  contender->start();
  return contender;
}

Contest LockTable::NamedLocks::contest(const AcquireRequest& request) {
  const LockKind& kind = request.hold.kind;
  if (kind.semaphore()) return semaphore.contest(request);
  if (kind.mode != Mode::exclusive) return read_write.contest(request);
  return exclusive.contest(request);
}

void LockTable::forget_if_idle(const std::string& name, SteadyClock::time_point now) {
  const auto found = locks_.find(name);
  if (found != locks_.end() && found->second.idle(now)) locks_.erase(found);
}

}  // namespace distlock::detail::memory
