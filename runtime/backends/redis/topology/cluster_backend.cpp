// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/topology/cluster_backend.h"

#include <array>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <utility>
#include <vector>

#include <distlock/error.h>

#include "backends/redis/locks/redis_keys.h"
#include "backends/redis/topology/cluster_slots.h"
#include "backends/redis/topology/hash_slot.h"
#include "backends/redis/topology/outage.h"
#include "backends/redis/topology/redis_backend.h"
#include "backends/redis/transport/connection_settings.h"
#include "backends/redis/transport/server_error.h"
#include "core/async_executor.h"
#include "core/ride_through.h"
#include "core/step_deadline.h"

namespace distlock::detail::redis {
namespace {

// A command redirected this often in a row gives up: the slot is moving back and forth.
constexpr int kMostRedirects = 5;
// While a slot migrates, a busy lock on the importing master is asked for again after this.
constexpr Millis kMigrationPause{20};

class ClusterBackend final : public Backend {
 public:
  ClusterBackend(Url url, const Options& options, StatsCounters& stats);

  std::optional<Grant> acquire(const AcquireRequest& request) override;
  // Waits on the master of the lock's slot without a thread (AsyncOnMaster).
  std::shared_ptr<PendingAcquisition> acquire_async(const AcquireRequest& request,
                                                    AsyncExecutor& executor,
                                                    AcquireCompletion done) override;
  ReleaseOutcome release(const ReleaseRequest& request) override;
  bool supports_keeping() const override { return true; }
  bool supports_read_write() const override { return true; }
  bool supports_permits() const override { return true; }
  bool supports_fair() const override { return true; }
  void renew(std::span<RenewItem> items, SteadyClock::time_point deadline) override;
  // One renewal its master answered with ASK, made again on the master named.
  void renew_on_importing_master(RenewItem& item, const Redirect& redirect,
                                 SteadyClock::time_point deadline);
  const std::string& server() const override { return server_; }

 private:
  class AsyncOnMaster;

  // Runs `operation(master, asking)` on the backend of the master of `name`'s slot,
  // following MOVED (the map is read again) and ASK (once, on the master named, with
  // Asking::yes) redirects. Connecting to a master and reading the map end by
  // `caller_deadline` (core/step_deadline.h) when that comes first.
  template <class Operation>
  auto on_master_of(std::string_view name, SteadyClock::time_point caller_deadline,
                    Operation&& operation);
  RedisBackend& master_of(int slot, SteadyClock::time_point caller_deadline);
  RedisBackend& backend_for(const Address& address, SteadyClock::time_point caller_deadline);
  // CLUSTER SLOTS from the first known node that answers.
  void read_slot_map(SteadyClock::time_point caller_deadline);
  void learn(const Redirect& redirect, SteadyClock::time_point caller_deadline);
  // Reads the map again; true when `slot` has another master now.
  bool slot_moved_on(int slot, SteadyClock::time_point caller_deadline);
  // The cluster's one classification of its failures, told of the lock: a refusal (Refused,
  // or a node's refusing answer) is final; any other failure (a master or every node out of
  // reach, no master for the slot yet, TRYAGAIN that did not pass) is transient, ridden through
  // (core/ride_through.h) while the caller's wait lasts: a failover or an outage.
  std::exception_ptr for_lock(std::string_view lock, const std::exception_ptr& failure) const;

  const Url url_;
  const std::string server_;
  const Options options_;
  StatsCounters& stats_;
  // For the CLUSTER SLOTS connections: the URL's credentials and timeouts.
  const ConnectionSettings settings_;

  std::shared_mutex slots_mutex_;
  std::array<int, kHashSlots> slot_master_{};  // index into masters_, -1: none
  std::vector<Address> masters_;

  std::mutex backends_mutex_;
  std::map<std::pair<std::string, std::uint16_t>, std::unique_ptr<RedisBackend>> backends_;
};

ClusterBackend::ClusterBackend(Url url, const Options& options, StatsCounters& stats)
    : url_(std::move(url)),
      server_(url_.redacted()),
      options_(options),
      stats_(stats),
      settings_(connection_settings(
          url_of_node(
              url_, {url_.endpoints.front().host, url_.endpoints.front().port.value_or(6379), {}}),
          options)) {
  slot_master_.fill(-1);
  read_slot_map(kNoCallerDeadline);
}

void ClusterBackend::read_slot_map(SteadyClock::time_point caller_deadline) {
  std::vector<Address> candidates;
  {
    std::shared_lock lock(slots_mutex_);
    candidates = masters_;
  }
  const std::vector<Address> seeds = seeds_of(url_);
  candidates.insert(candidates.end(), seeds.begin(), seeds.end());
  SlotMap map = redis::read_slot_map(settings_, candidates, server_, caller_deadline);
  std::unique_lock lock(slots_mutex_);
  slot_master_ = map.master_of_slot;
  masters_ = std::move(map.masters);
}

void ClusterBackend::learn(const Redirect& redirect, SteadyClock::time_point caller_deadline) {
  // The whole map is read again: a slot seldom moves alone (a resharding, a failover).
  try {
    read_slot_map(caller_deadline);
  } catch (const BackendUnavailable&) {
    // Keep at least what the redirect says.
  }
  if (redirect.ask) return;
  std::unique_lock lock(slots_mutex_);
  const Address address{redirect.host, redirect.port, {}};
  auto found = std::find(masters_.begin(), masters_.end(), address);
  if (found == masters_.end()) found = masters_.insert(masters_.end(), address);
  slot_master_[static_cast<std::size_t>(redirect.slot)] =
      static_cast<int>(found - masters_.begin());
}

RedisBackend& ClusterBackend::master_of(int slot, SteadyClock::time_point caller_deadline) {
  Address address;
  {
    std::shared_lock lock(slots_mutex_);
    const int index = slot_master_[static_cast<std::size_t>(slot)];
    if (index < 0)
      throw BackendUnavailable("", server_,
                               "no master serves slot " + std::to_string(slot) +
                                   " (the cluster is not fully set up, or is failing over)");
    address = masters_[static_cast<std::size_t>(index)];
  }
  return backend_for(address, caller_deadline);
}

RedisBackend& ClusterBackend::backend_for(const Address& address,
                                          SteadyClock::time_point caller_deadline) {
  const std::pair<std::string, std::uint16_t> node{address.host, address.port};
  {
    std::lock_guard lock(backends_mutex_);
    if (const auto found = backends_.find(node); found != backends_.end()) return *found->second;
  }
  // Connected without the lock: a master that is slow to answer holds up no call to another,
  // and what connecting logs (through the user's logger) runs under no lock of ours. Two
  // callers may both connect; the second backend made is dropped, after the lock is released.
  ConnectionSettings settings = connection_settings(url_of_node(url_, address), options_);
  settings.sharded_pubsub = true;
  // A master that does not answer may be replaced by its replica: riding through on it alone
  // would never find the new one. The cluster rides through instead (acquire).
  settings.outage_limit = Millis::zero();
  auto made = std::make_unique<RedisBackend>(std::move(settings), stats_, caller_deadline);
  std::lock_guard lock(backends_mutex_);
  auto& backend = backends_[node];
  if (!backend) backend = std::move(made);
  return *backend;
}

template <class Operation>
auto ClusterBackend::on_master_of(std::string_view name, SteadyClock::time_point caller_deadline,
                                  Operation&& operation) {
  const int slot = hash_slot(lock_key(name));
  RedisBackend* master = nullptr;
  Asking asking = Asking::no;
  for (int redirects = 0;; ++redirects) {
    try {
      return operation(master != nullptr ? *master : master_of(slot, caller_deadline), asking);
    } catch (const TryAgain& busy) {
      // Some of the lock's keys are on either side of a migration: shortly they are not.
      if (redirects + 1 >= kMostRedirects)
        throw BackendUnavailable(std::string(name), server_, busy.reason());
      std::this_thread::sleep_for(kMigrationPause);
    } catch (const Redirected& redirected) {
      if (redirects + 1 >= kMostRedirects)
        throw BackendUnavailable(std::string(name), server_,
                                 "slot " + std::to_string(slot) + " was redirected " +
                                     std::to_string(kMostRedirects) +
                                     " times in a row (last: " + redirected.reason() + ")");
      const Redirect& redirect = redirected.redirect();
      if (redirect.ask) {
        master = &backend_for({redirect.host, redirect.port, {}}, caller_deadline);
        asking = Asking::yes;
      } else {
        learn(redirect, caller_deadline);
        master = nullptr;
        asking = Asking::no;
      }
    } catch (const BackendUnavailable&) {
      // A master that does not answer may have been replaced by its replica: when the map
      // read now names another master for the slot, the command goes there.
      if (redirects + 1 >= kMostRedirects || master != nullptr ||
          !slot_moved_on(slot, caller_deadline))
        throw;
    }
  }
}

bool ClusterBackend::slot_moved_on(int slot, SteadyClock::time_point caller_deadline) {
  const auto master_address = [&]() -> std::optional<Address> {
    std::shared_lock lock(slots_mutex_);
    const int index = slot_master_[static_cast<std::size_t>(slot)];
    if (index < 0) return std::nullopt;
    return masters_[static_cast<std::size_t>(index)];
  };
  const auto before = master_address();
  try {
    read_slot_map(caller_deadline);
  } catch (const BackendUnavailable&) {
    return false;
  }
  return master_address() != before;
}

std::exception_ptr ClusterBackend::for_lock(std::string_view lock,
                                            const std::exception_ptr& failure) const {
  try {
    std::rethrow_exception(failure);
  } catch (const Refused&) {
    return failure;
  } catch (const TransientUnavailable&) {
    return failure;
  } catch (const ServerError& error) {
    try {
      error.throw_for_lock(lock);
    } catch (const BackendUnavailable&) {
      return std::current_exception();
    }
  } catch (const BackendUnavailable& error) {
    return std::make_exception_ptr(
        TransientUnavailable(std::string(lock), server_, error.reason()));
  } catch (...) {
    return failure;
  }
}

std::optional<Grant> ClusterBackend::acquire(const AcquireRequest& request) {
  Outage outage(options_.outage_limit);
  const AcquisitionDeadline deadline(request.deadline);
  for (;;) {
    std::optional<Grant> grant;
    // Whether the attempt settled the acquisition (a grant, or the lock busy on its master).
    const auto attempt = [&](RedisBackend& master, Asking asking) {
      if (asking == Asking::no) {
        grant = master.acquire(request);
        return true;
      }
      // The lock's keys are on the importing master already: one try there.
      try {
        grant = master.try_acquire(request, Asking::yes).grant;
      } catch (const TryAgain&) {
        return false;  // some of its keys are still on the old master
      }
      return grant.has_value();
    };
    bool settled = false;
    try {
      try {
        settled = on_master_of(request.hold.name, deadline.for_steps(), attempt);
      } catch (const BackendUnavailable&) {
        std::rethrow_exception(for_lock(request.hold.name, std::current_exception()));
      }
      outage.succeeded();
    } catch (const TransientUnavailable& failure) {
      // A master failing over (the slot map names its replica once it is promoted), or the
      // cluster out of reach.
      if (!outage.pause_before_retry(request.deadline, failure.what())) throw;
      continue;
    }
    if (settled || SteadyClock::now() >= request.deadline) return grant;
    // Busy during a migration: the slot's owner is settled again shortly.
    std::this_thread::sleep_until(std::min(SteadyClock::now() + kMigrationPause, request.deadline));
  }
}

// An acquisition waiting without a thread on the master of its lock's slot (async_waiter.h),
// as acquire() does: MOVED reads the slot map again and goes on at the master it names, ASK
// makes one try on the importing master, TRYAGAIN pauses, a master that stopped answering is
// left for its promoted replica, and a transient failure is ridden through while the wait
// lasts. Its steps run on the executor; connecting to a master and reading the slot map there
// end by the wait's deadline.
class ClusterBackend::AsyncOnMaster final : public PendingAcquisition,
                                            public std::enable_shared_from_this<AsyncOnMaster> {
 public:
  AsyncOnMaster(ClusterBackend& cluster, const AcquireRequest& request, AsyncExecutor& executor,
                AcquireCompletion done)
      : cluster_(cluster),
        request_(request),
        executor_(executor),
        done_(std::move(done)),
        slot_(hash_slot(lock_key(request.hold.name))),
        deadline_(request.deadline),
        outage_(cluster.options_.outage_limit) {}

  void start() {
    executor_.post([self = shared_from_this()] { self->on_master(); });
  }

  void withdraw(std::exception_ptr why) override {
    std::shared_ptr<PendingAcquisition> waiting;
    {
      std::lock_guard lock(mutex_);
      if (finished_ || withdrawn_) return;
      withdrawn_ = why;
      waiting = waiting_;
    }
    // The master's waiter ends with `why`; between masters, the next step does.
    if (waiting) waiting->withdraw(std::move(why));
  }

 private:
  void on_master() {
    if (std::exception_ptr why = withdrawn(); why) {
      finish(std::nullopt, why);
      return;
    }
    try {
      if (asked_ != nullptr) {
        // The lock's keys are on the importing master already: one try there.
        RedisBackend& importing = *std::exchange(asked_, nullptr);
        std::optional<Grant> grant;
        try {
          grant = importing.try_acquire(request_, Asking::yes).grant;
          // It answered: the redirects in a row end here. A lock busy there while the slot
          // migrates is asked for again until the migration ends or the wait does, however
          // long the migration lasts (a slot's keys move one MIGRATE at a time).
          redirects_ = 0;
        } catch (const TryAgain&) {
          // Some of its keys are still on the old master.
        }
        outage_.succeeded();
        if (grant || SteadyClock::now() >= request_.deadline) {
          finish(grant, nullptr);
          return;
        }
        again_after(kMigrationPause);
        return;
      }
      auto waiting =
          cluster_.master_of(slot_, deadline_.for_steps())
              .acquire_async(request_, executor_,
                             [self = shared_from_this()](std::optional<Grant> grant,
                                                         const std::exception_ptr& error) {
                               self->heard(grant, error);
                             });
      std::lock_guard lock(mutex_);
      waiting_ = std::move(waiting);
      if (withdrawn_) waiting_->withdraw(withdrawn_);
    } catch (const BackendUnavailable&) {
      ride_through(std::current_exception());
    } catch (...) {
      finish(std::nullopt, std::current_exception());
    }
  }

  // The master's waiter ended.
  void heard(std::optional<Grant> grant, const std::exception_ptr& error) {
    {
      std::lock_guard lock(mutex_);
      waiting_.reset();
    }
    if (!error) {
      finish(grant, nullptr);
      return;
    }
    // Withdrawn: whatever else ended the master's waiter, the caller hears why it asked.
    if (std::exception_ptr why = withdrawn(); why) {
      finish(std::nullopt, why);
      return;
    }
    try {
      go_on_after(error);
    } catch (const BackendUnavailable&) {
      ride_through(std::current_exception());
    } catch (...) {
      finish(std::nullopt, std::current_exception());
    }
  }

  // The next step after the master's waiter ended with `error`.
  void go_on_after(const std::exception_ptr& error) {
    try {
      std::rethrow_exception(error);
    } catch (const Redirected& redirected) {
      outage_.succeeded();
      if (++redirects_ >= kMostRedirects)
        throw BackendUnavailable("", cluster_.server_,
                                 "slot " + std::to_string(slot_) + " was redirected " +
                                     std::to_string(kMostRedirects) +
                                     " times in a row (last: " + redirected.reason() + ")");
      const Redirect& redirect = redirected.redirect();
      if (redirect.ask)
        asked_ = &cluster_.backend_for({redirect.host, redirect.port, {}}, deadline_.for_steps());
      else
        cluster_.learn(redirect, deadline_.for_steps());
      again_after(Millis::zero());
    } catch (const TryAgain&) {
      if (++redirects_ >= kMostRedirects) throw;
      again_after(kMigrationPause);
    } catch (const Refused&) {
      throw;
    } catch (const BackendUnavailable&) {
      // A master that does not answer may have been replaced by its replica.
      if (++redirects_ < kMostRedirects && cluster_.slot_moved_on(slot_, deadline_.for_steps())) {
        again_after(Millis::zero());
        return;
      }
      throw;
    }
  }

  // The step failed with `error`: made again after the policy's pause while the wait lasts
  // (core/ride_through.h) if the cluster calls it transient, else the acquisition ends with it.
  void ride_through(const std::exception_ptr& error) {
    const std::exception_ptr failure = cluster_.for_lock(request_.hold.name, error);
    try {
      std::rethrow_exception(failure);
    } catch (const TransientUnavailable& transient) {
      if (const auto retry_at = outage_.next_try(request_.deadline, transient.what())) {
        redirects_ = 0;
        executor_.post_at(*retry_at, [self = shared_from_this()] { self->on_master(); });
        return;
      }
    } catch (...) {
      // Final: the acquisition ends with it.
    }
    finish(std::nullopt, failure);
  }

  void again_after(Millis pause) {
    auto self = shared_from_this();
    if (pause == Millis::zero())
      executor_.post([self] { self->on_master(); });
    else
      executor_.post_at(SteadyClock::now() + pause, [self] { self->on_master(); });
  }

  std::exception_ptr withdrawn() {
    std::lock_guard lock(mutex_);
    return withdrawn_;
  }

  void finish(std::optional<Grant> grant, std::exception_ptr error) {
    {
      std::lock_guard lock(mutex_);
      if (finished_) return;
      finished_ = true;
    }
    executor_.post([done = std::move(done_), grant, error = std::move(error),
                    self = shared_from_this()]() mutable { done(grant, std::move(error)); });
  }

  ClusterBackend& cluster_;
  const AcquireRequest request_;
  AsyncExecutor& executor_;
  AcquireCompletion done_;
  const int slot_;
  const AcquisitionDeadline deadline_;
  // The executor's: steps run one at a time.
  RideThrough outage_;
  int redirects_ = 0;
  RedisBackend* asked_ = nullptr;  // the importing master an ASK named, for the next step

  std::mutex mutex_;
  bool finished_ = false;
  std::exception_ptr withdrawn_;
  std::shared_ptr<PendingAcquisition> waiting_;  // the master's waiter
};

std::shared_ptr<PendingAcquisition> ClusterBackend::acquire_async(const AcquireRequest& request,
                                                                  AsyncExecutor& executor,
                                                                  AcquireCompletion done) {
  auto acquisition = std::make_shared<AsyncOnMaster>(*this, request, executor, std::move(done));
  acquisition->start();
  return acquisition;
}

ReleaseOutcome ClusterBackend::release(const ReleaseRequest& request) {
  Outage outage(options_.outage_limit);
  for (;;) {
    try {
      try {
        return on_master_of(
            request.hold.name, kNoCallerDeadline,
            [&](RedisBackend& master, Asking asking) { return master.release(request, asking); });
      } catch (const BackendUnavailable&) {
        std::rethrow_exception(for_lock(request.hold.name, std::current_exception()));
      }
    } catch (const TransientUnavailable& failure) {
      // A master failing over, as for acquire: else the lock stays taken until its ttl.
      if (!outage.pause_before_retry(SteadyClock::time_point::max(), failure.what())) throw;
    }
  }
}

void ClusterBackend::renew_on_importing_master(RenewItem& item, const Redirect& redirect,
                                               SteadyClock::time_point deadline) {
  std::vector<std::optional<Redirect>> asked(1);
  try {
    backend_for({redirect.host, redirect.port, {}}, deadline)
        .renew(std::span(&item, 1), deadline, Asking::yes, asked);
  } catch (const BackendUnavailable& error) {
    item.outcome = RenewItem::Outcome::failed;
    item.error = error.reason();
  }
}

void ClusterBackend::renew(std::span<RenewItem> items, SteadyClock::time_point deadline) {
  // One batch per master, pipelined there; the items go back to their places afterwards.
  std::map<RedisBackend*, std::vector<std::size_t>> by_master;
  for (std::size_t i = 0; i < items.size(); ++i) {
    try {
      by_master[&master_of(hash_slot(lock_key(items[i].hold.name)), deadline)].push_back(i);
    } catch (const BackendUnavailable& error) {
      items[i].outcome = RenewItem::Outcome::failed;
      items[i].error = error.reason();
    }
  }
  bool any_failed = false;
  for (auto& [master, indices] : by_master) {
    std::vector<RenewItem> batch;
    batch.reserve(indices.size());
    for (const auto i : indices) batch.push_back(items[i]);
    std::vector<std::optional<Redirect>> asked(batch.size());
    master->renew(batch, deadline, Asking::no, asked);
    for (std::size_t j = 0; j < indices.size(); ++j) {
      // Its slot migrates, and its keys went ahead to the importing master: renewed there, so
      // that a migration longer than the ttl costs no lease.
      if (asked[j]) renew_on_importing_master(batch[j], *asked[j], deadline);
      items[indices[j]] = std::move(batch[j]);
      any_failed = any_failed || items[indices[j]].outcome == RenewItem::Outcome::failed;
    }
  }
  // A failed renewal may be a moved slot (a MOVED reply) or a master gone: the next try
  // goes where the cluster says now.
  if (any_failed) {
    try {
      read_slot_map(deadline);
    } catch (const BackendUnavailable&) {
      // The renewal queue tries again; so will this.
    }
  }
}

}  // namespace

std::unique_ptr<Backend> make_cluster_backend(const Url& url, const Options& options,
                                              StatsCounters& stats) {
  return std::make_unique<ClusterBackend>(url, options, stats);
}

}  // namespace distlock::detail::redis
