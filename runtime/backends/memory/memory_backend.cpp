#include "backends/memory/memory_backend.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <distlock/error.h>

namespace distlock::detail::memory {
namespace {

// One lock table, shared by every client of one memory:// name for the process's lifetime,
// so fences keep increasing however clients come and go.
class LockTable {
 public:
  std::optional<Grant> acquire(const AcquireRequest& request, StatsCounters& stats);
  ReleaseOutcome release(const ReleaseRequest& request);
  void renew(std::span<RenewItem> items);

 private:
  struct Hold {
    std::string owner;
    std::unordered_set<std::string> acquisitions;
    std::uint64_t fence = 0;
    SteadyClock::time_point expires_at;
  };
  struct Waiters {
    std::condition_variable released;
    unsigned count = 0;
  };

  // The hold on `name` if it has not expired; an expired hold is dropped.
  Hold* live_hold(const std::string& name, SteadyClock::time_point now);
  Hold* held_by(const std::string& name, std::string_view owner, std::string_view acquisition_id,
                SteadyClock::time_point now);

  std::mutex mutex_;
  std::unordered_map<std::string, Hold> holds_;
  std::unordered_map<std::string, Waiters> waiters_;
  std::uint64_t last_fence_ = 0;
};

LockTable::Hold* LockTable::live_hold(const std::string& name, SteadyClock::time_point now) {
  const auto found = holds_.find(name);
  if (found == holds_.end()) return nullptr;
  if (now < found->second.expires_at) return &found->second;
  holds_.erase(found);
  return nullptr;
}

LockTable::Hold* LockTable::held_by(const std::string& name, std::string_view owner,
                                    std::string_view acquisition_id, SteadyClock::time_point now) {
  Hold* hold = live_hold(name, now);
  if (hold == nullptr || hold->owner != owner ||
      !hold->acquisitions.contains(std::string(acquisition_id)))
    return nullptr;
  return hold;
}

std::optional<Grant> LockTable::acquire(const AcquireRequest& request, StatsCounters& stats) {
  const std::string name(request.hold.name);
  std::unique_lock lock(mutex_);
  bool contended = false;
  for (;;) {
    const auto now = SteadyClock::now();
    Hold* hold = live_hold(name, now);
    if (hold == nullptr) {
      Hold& taken = holds_[name];
      taken.owner = request.hold.owner;
      taken.acquisitions = {std::string(request.hold.acquisition_id)};
      taken.fence = ++last_fence_;
      taken.expires_at = now + request.ttl;
      return Grant{taken.fence, now};
    }
    if (hold->owner == request.hold.owner) {
      hold->acquisitions.insert(std::string(request.hold.acquisition_id));
      hold->expires_at = std::max(hold->expires_at, now + request.ttl);
      return Grant{hold->fence, now};
    }
    if (now >= request.deadline) return std::nullopt;
    if (!contended) {
      contended = true;
      ++stats.contended;
    }
    Waiters& waiters = waiters_[name];
    ++waiters.count;
    const auto wake_at = std::min(hold->expires_at, request.deadline);
    std::cv_status status;
    {
      WaitingScope waiting(stats);
      status = waiters.released.wait_until(lock, wake_at);
    }
    if (status == std::cv_status::timeout)
      ++stats.woken_by_timeout;
    else
      ++stats.woken_by_release;
    if (--waiters.count == 0) waiters_.erase(name);
  }
}

ReleaseOutcome LockTable::release(const ReleaseRequest& request) {
  const HoldId& released = request.hold;
  const std::string key(released.name);
  std::lock_guard lock(mutex_);
  const auto now = SteadyClock::now();
  Hold* hold = held_by(key, released.owner, released.acquisition_id, now);
  if (hold == nullptr) return ReleaseOutcome::not_held;
  hold->acquisitions.erase(std::string(released.acquisition_id));
  if (hold->acquisitions.empty() && request.keep_for > Millis::zero()) {
    // Taken by nobody until then: no owner matches an empty one.
    hold->owner.clear();
    hold->expires_at = now + request.keep_for;
  } else if (hold->acquisitions.empty()) {
    holds_.erase(key);
    if (const auto waiting = waiters_.find(key); waiting != waiters_.end())
      waiting->second.released.notify_all();
  }
  return ReleaseOutcome::released;
}

void LockTable::renew(std::span<RenewItem> items) {
  std::lock_guard lock(mutex_);
  const auto now = SteadyClock::now();
  for (auto& item : items) {
    Hold* hold =
        held_by(std::string(item.hold.name), item.hold.owner, item.hold.acquisition_id, now);
    if (hold == nullptr) {
      item.outcome = RenewItem::Outcome::lost;
      continue;
    }
    hold->expires_at = std::max(hold->expires_at, now + item.ttl);
    item.outcome = RenewItem::Outcome::renewed;
  }
}

std::shared_ptr<LockTable> table_named(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<LockTable>> tables;
  std::lock_guard lock(mutex);
  auto& table = tables[name];
  if (!table) table = std::make_shared<LockTable>();
  return table;
}

class MemoryBackend final : public Backend {
 public:
  MemoryBackend(std::string server, std::shared_ptr<LockTable> table, StatsCounters& stats)
      : server_(std::move(server)), table_(std::move(table)), stats_(stats) {}

  std::optional<Grant> acquire(const AcquireRequest& request) override {
    return table_->acquire(request, stats_);
  }
  ReleaseOutcome release(const ReleaseRequest& request) override {
    return table_->release(request);
  }
  bool supports_keeping() const override { return true; }
  void renew(std::span<RenewItem> items, SteadyClock::time_point) override { table_->renew(items); }
  const std::string& server() const override { return server_; }

 private:
  const std::string server_;
  const std::shared_ptr<LockTable> table_;
  StatsCounters& stats_;
};

}  // namespace

std::unique_ptr<Backend> make_backend(const Url& url, const Options&, StatsCounters& stats) {
  if (url.user || url.password || url.endpoints.size() > 1 || !url.path.empty() ||
      (url.endpoints.size() == 1 && url.endpoints[0].port))
    throw ConfigError("", url.redacted(), "bad URL: a memory URL is memory:// or memory://<name>");
  const std::string name = url.endpoints.empty() ? "" : url.endpoints[0].host;
  return std::make_unique<MemoryBackend>(url.redacted(), table_named(name), stats);
}

}  // namespace distlock::detail::memory
