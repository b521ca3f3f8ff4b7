// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/etcd_backend.h"

#include <algorithm>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <distlock/error.h>

#include "backends/etcd/async_waiter.h"
#include "backends/etcd/contender.h"
#include "backends/etcd/deletion_watcher.h"
#include "backends/etcd/held_keys.h"
#include "backends/etcd/key_layout.h"
#include "backends/etcd/lease_shelf.h"
#include "backends/etcd/queue_contender.h"
#include "backends/etcd/rpc_client.h"
#include "backends/etcd/semaphore_contender.h"
#include "backends/etcd/settings.h"
#include "core/ride_through.h"
#include "util/process_label.h"

namespace distlock::detail::etcd {
namespace {

// Where this process files a hold of one side of a lock, so that a reentry finds it: the
// exclusive lock, or a read-write lock's read or write side.
std::string hold_side(const std::string& prefix, Mode mode) {
  switch (mode) {
    case Mode::read:
      return prefix + "/read";
    case Mode::write:
      return prefix + "/write";
    case Mode::exclusive:
      break;
  }
  return prefix;
}

Recipe recipe_of(Mode mode) {
  switch (mode) {
    case Mode::read:
      return Recipe::read;
    case Mode::write:
      return Recipe::write;
    case Mode::exclusive:
      break;
  }
  return Recipe::mutex;
}

class EtcdBackend final : public Backend {
 public:
  EtcdBackend(EtcdSettings settings, StatsCounters& stats)
      : settings_(std::move(settings)),
        stats_(stats),
        holder_(process_label()),
        rpc_(settings_),
        granted_([this](const AcquireRequest& request, const Contender& contender, bool contended) {
          return grant(request, contender, contended);
        }),
        failed_([this](const AcquireRequest& request) { return failure(request); }) {
    try {
      rpc_.check_reachable();
    } catch (const RpcError& error) {
      throw BackendUnavailable("", settings_.server, error.reason());
    }
    watcher_ = std::make_unique<DeletionWatcher>(rpc_);
  }

  std::optional<Grant> acquire(const AcquireRequest& request) override;
  std::shared_ptr<PendingAcquisition> acquire_async(const AcquireRequest& request,
                                                    AsyncExecutor& executor,
                                                    AcquireCompletion done) override;
  ReleaseOutcome release(const ReleaseRequest& request) override;
  void renew(std::span<RenewItem> items, SteadyClock::time_point deadline) override;
  const std::string& server() const override { return settings_.server; }
  bool supports_read_write() const override { return true; }
  bool supports_permits() const override { return true; }
  // The Mutex grants in arrival order, and a release wakes the next waiter only.
  bool supports_fair() const override { return true; }

 private:
  std::unique_ptr<Contender> contender_for(const AcquireRequest& request);
  // One pass of the recipe: enter, then wait for what holds the contender back until the grant
  // or the deadline, telling `outage` of each step that got through. Throws RpcError.
  std::optional<Grant> contend(const AcquireRequest& request, Contender& contender, bool& contended,
                               RideThrough& outage);
  // A reentry of a hold this owner has, or a read by the owner of the write side: its grant,
  // or none when there is no such hold or its key is gone.
  std::optional<Grant> reenter(const AcquireRequest& request);
  Grant grant(const AcquireRequest& request, const Contender& contender, bool contended);
  // Inside a catch block: the error a failed step ends the acquisition with.
  std::exception_ptr failure(const AcquireRequest& request) const;
  // Whether each held key is still there with its revision, in one round trip.
  std::vector<bool> keys_present(const std::vector<HeldKey>& keys,
                                 SteadyClock::time_point deadline);

  const EtcdSettings settings_;
  StatsCounters& stats_;
  const std::string holder_;
  RpcClient rpc_;
  HeldKeys holds_;
  LeaseShelf shelf_;
  // The executor's only (one per client, as this backend is).
  WaitingLeases waiting_leases_{rpc_, stats_};
  const AsyncWaiter::Granted granted_;
  const AsyncWaiter::Failed failed_;
  std::unique_ptr<DeletionWatcher> watcher_;
};

std::unique_ptr<Contender> EtcdBackend::contender_for(const AcquireRequest& request) {
  // As a ZooKeeper node's data: "<host> <pid> <acquisition id>" (admin/holder_text.h).
  std::string value = holder_;
  value += ' ';
  value += request.hold.acquisition_id;
  std::string prefix = lock_prefix(request.hold.name);
  const LockKind& kind = request.hold.kind;
  if (kind.semaphore())
    return std::make_unique<SemaphoreContender>(rpc_, shelf_, stats_, prefix, kind.permits,
                                                request.ttl, std::move(value), request.deadline);
  return std::make_unique<QueueContender>(rpc_, shelf_, stats_, std::move(prefix),
                                          recipe_of(kind.mode), request.ttl, std::move(value),
                                          request.deadline);
}

std::optional<Grant> EtcdBackend::reenter(const AcquireRequest& request) {
  const std::string prefix = lock_prefix(request.hold.name);
  std::string side = hold_side(prefix, request.hold.kind.mode);
  auto held = request.reentry ? holds_.find(side, request.hold.owner) : std::nullopt;
  // A read by the write holder shares the write's key, as on ZooKeeper it sorts with the write
  // node: a read key of its own would come after the writers queued behind the write, which
  // would then be granted while it reads.
  if (!held && request.holds_write) {
    side = hold_side(prefix, Mode::write);
    held = holds_.find(side, request.hold.owner);
  }
  if (!held) return std::nullopt;
  // The reentry shares the hold's lease, whose ttl etcd cannot lengthen: a longer one would
  // outlive it in the client's eyes.
  if (request.ttl > held->ttl)
    throw ConfigError(std::string(request.hold.name), settings_.server,
                      "a reentrant acquisition on etcd shares the lease of the hold it "
                      "re-enters, whose ttl is " +
                          std::to_string(held->ttl.count()) +
                          " ms: give it that ttl or a shorter one");
  // One round trip notices a key deleted behind our back; the validity counts, as the hold's
  // does, from the last confirmation of the lease.
  if (keys_present({*held}, rpc_.command_deadline(request.deadline)).front() &&
      holds_.join(side, request.hold.owner, *held, request.hold.acquisition_id))
    return Grant{static_cast<std::uint64_t>(held->revision), held->alive_since};
  holds_.forget(side, request.hold.owner, *held);
  return std::nullopt;
}

Grant EtcdBackend::grant(const AcquireRequest& request, const Contender& contender,
                         bool contended) {
  // Each permit is a hold of its own, never re-entered: filed under its own key.
  const std::string side = request.hold.kind.semaphore()
                               ? contender.key()
                               : hold_side(lock_prefix(request.hold.name), request.hold.kind.mode);
  holds_.add(side, request.hold.owner,
             HeldKey{contender.key(), contender.lease(), contender.revision(), contender.ttl(),
                     contender.alive_since()},
             request.hold.acquisition_id);
  return Grant{static_cast<std::uint64_t>(contender.revision()), contender.alive_since(),
               contended};
}

std::exception_ptr EtcdBackend::failure(const AcquireRequest& request) const {
  try {
    throw;
  } catch (const RpcError& error) {
    if (error.transient())
      return std::make_exception_ptr(
          TransientUnavailable(std::string(request.hold.name), settings_.server, error.reason()));
    return std::make_exception_ptr(
        BackendUnavailable(std::string(request.hold.name), settings_.server, error.reason()));
  } catch (...) {
    return std::current_exception();
  }
}

std::optional<Grant> EtcdBackend::acquire(const AcquireRequest& request) {
  auto contender = contender_for(request);
  bool contended = false;
  RideThrough outage(settings_.outage_limit);
  for (;;) {
    try {
      if (request.reentry || request.holds_write)
        if (auto reentered = reenter(request)) return reentered;
      return contend(request, *contender, contended, outage);
    } catch (const RpcError& error) {
      contender->leave();
      if (!error.transient()) std::rethrow_exception(failure(request));
      const TransientUnavailable transient(std::string(request.hold.name), settings_.server,
                                           error.reason());
      if (!outage.pause_before_retry(request.deadline, transient.what())) throw transient;
    }
  }
}

std::optional<Grant> EtcdBackend::contend(const AcquireRequest& request, Contender& contender,
                                          bool& contended, RideThrough& outage) {
  Standing standing = contender.enter();
  std::optional<WaitingScope> waiting;
  while (!standing.holds) {
    outage.succeeded();
    if (standing.gone) {
      contender.leave();
      standing = contender.enter();
      continue;
    }
    if (SteadyClock::now() >= request.deadline) {
      contender.leave();
      return std::nullopt;
    }
    if (!contended) {
      contended = true;
      ++stats_.contended;
    }
    if (!waiting) waiting.emplace(stats_);
    const auto ticket = watcher_->watch(*standing.wait_for, standing.listed_at + 1);
    const bool deleted = ticket->wait(std::min(contender.keep_alive_due(), request.deadline));
    if (deleted) {
      ++stats_.woken_by_release;
    } else if (SteadyClock::now() >= request.deadline) {
      contender.leave();
      return std::nullopt;
    }
    if (SteadyClock::now() >= contender.keep_alive_due() && !contender.keep_alive()) {
      standing.gone = true;
      continue;
    }
    standing = contender.look();
  }
  return grant(request, contender, contended);
}

std::shared_ptr<PendingAcquisition> EtcdBackend::acquire_async(const AcquireRequest& request,
                                                               AsyncExecutor& executor,
                                                               AcquireCompletion done) {
  if (request.reentry || request.holds_write) {
    try {
      if (auto reentered = reenter(request)) {
        executor.post([done = std::move(done), grant = *reentered] { done(grant, nullptr); });
        return nullptr;
      }
    } catch (...) {
      executor.post(
          [done = std::move(done), error = failure(request)] { done(std::nullopt, error); });
      return nullptr;
    }
  }
  auto waiter = std::make_shared<AsyncWaiter>(request, contender_for(request), *watcher_,
                                              waiting_leases_, granted_, failed_, stats_, executor,
                                              settings_.outage_limit, std::move(done));
  waiter->start();
  return waiter;
}

ReleaseOutcome EtcdBackend::release(const ReleaseRequest& request) {
  const auto removal = holds_.remove(request.hold.acquisition_id);
  if (!removal.known) return ReleaseOutcome::not_held;
  if (!removal.ended) return ReleaseOutcome::released;
  const HeldKey& held = *removal.ended;
  // Deletes the key only if it is still this acquisition's (not a later holder's of a key of
  // the same name, which a lease id makes unlikely, nor one recreated by someone else).
  etcdserverpb::TxnRequest txn;
  auto* ours = txn.add_compare();
  ours->set_key(held.key);
  ours->set_target(etcdserverpb::Compare::CREATE);
  ours->set_result(etcdserverpb::Compare::EQUAL);
  ours->set_create_revision(held.revision);
  txn.add_success()->mutable_request_delete_range()->set_key(held.key);
  try {
    ++stats_.round_trips;
    const bool deleted = rpc_.txn(txn, rpc_.command_deadline()).succeeded();
    if (!deleted) {
      rpc_.lease_revoke_unawaited(held.lease);
      return ReleaseOutcome::not_held;
    }
    // The lease holds nothing more: the next acquisition of its ttl may use it.
    if (const auto evicted = shelf_.put(held.ttl, SpareLease{held.lease, held.alive_since}))
      rpc_.lease_revoke_unawaited(*evicted);
    return ReleaseOutcome::released;
  } catch (const RpcError& error) {
    rpc_.lease_revoke_unawaited(held.lease);
    throw BackendUnavailable(std::string(request.hold.name), settings_.server, error.reason());
  }
}

std::vector<bool> EtcdBackend::keys_present(const std::vector<HeldKey>& keys,
                                            SteadyClock::time_point deadline) {
  etcdserverpb::TxnRequest txn;
  for (const auto& held : keys) {
    auto* range = txn.add_success()->mutable_request_range();
    range->set_key(held.key);
    range->set_keys_only(true);
  }
  ++stats_.round_trips;
  const auto reply = rpc_.txn(txn, deadline);
  std::vector<bool> present(keys.size(), false);
  for (std::size_t i = 0; i < keys.size() && static_cast<int>(i) < reply.responses_size(); ++i) {
    const auto& found = reply.responses(static_cast<int>(i)).response_range();
    present[i] = found.kvs_size() > 0 && found.kvs(0).create_revision() == keys[i].revision;
  }
  return present;
}

void EtcdBackend::renew(std::span<RenewItem> items, SteadyClock::time_point deadline) {
  if (items.empty()) return;
  std::vector<std::optional<HeldKey>> held;
  std::vector<HeldKey> known;
  std::vector<std::int64_t> leases;
  held.reserve(items.size());
  for (const auto& item : items) {
    held.push_back(holds_.of(item.hold.acquisition_id));
    if (!held.back()) continue;
    known.push_back(*held.back());
    if (std::find(leases.begin(), leases.end(), held.back()->lease) == leases.end())
      leases.push_back(held.back()->lease);
  }
  std::vector<std::int64_t> ttl_left;
  std::vector<bool> present;
  try {
    if (!leases.empty()) {
      const auto sent_at = SteadyClock::now();
      ++stats_.round_trips;
      ttl_left = rpc_.keep_alive(leases, deadline);
      for (std::size_t i = 0; i < leases.size(); ++i)
        if (ttl_left[i] > 0) holds_.confirmed(leases[i], sent_at);
      present = keys_present(known, deadline);
    }
  } catch (const RpcError& error) {
    for (auto& item : items) {
      item.outcome = RenewItem::Outcome::failed;
      item.error = error.reason();
    }
    return;
  }
  std::size_t next_known = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto& item = items[i];
    item.error.clear();
    if (!held[i]) {
      item.outcome = RenewItem::Outcome::lost;
      continue;
    }
    const auto lease = std::find(leases.begin(), leases.end(), held[i]->lease) - leases.begin();
    const bool alive = ttl_left[static_cast<std::size_t>(lease)] > 0;
    item.outcome =
        alive && present[next_known] ? RenewItem::Outcome::renewed : RenewItem::Outcome::lost;
    ++next_known;
  }
}

}  // namespace

std::unique_ptr<Backend> make_backend(const Url& url, const Options& options,
                                      StatsCounters& stats) {
  return std::make_unique<EtcdBackend>(etcd_settings(url, options), stats);
}

}  // namespace distlock::detail::etcd
