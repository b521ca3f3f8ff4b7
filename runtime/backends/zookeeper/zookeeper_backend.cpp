// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/zookeeper_backend.h"

#include <map>
#include <mutex>

#include <distlock/log.h>

#include "backends/zookeeper/acls.h"
#include "backends/zookeeper/async_contention.h"
#include "backends/zookeeper/async_semaphore.h"
#include "backends/zookeeper/contention.h"
#include "backends/zookeeper/context.h"
#include "backends/zookeeper/holds.h"
#include "backends/zookeeper/lock_nodes.h"
#include "backends/zookeeper/reaper.h"
#include "backends/zookeeper/requests.h"
#include "backends/zookeeper/semaphore.h"
#include "backends/zookeeper/session_keeper.h"
#include "backends/zookeeper/settings.h"
#include "backends/zookeeper/status.h"

namespace distlock::detail::zookeeper {
namespace {

class ZooKeeperBackend final : public Backend {
 public:
  ZooKeeperBackend(ZooKeeperSettings settings, StatsCounters& stats);
  ~ZooKeeperBackend() override;

  std::optional<Grant> acquire(const AcquireRequest& request) override;
  // Waiters watch their predecessor's node as waiting threads do, with no thread each.
  std::shared_ptr<PendingAcquisition> acquire_async(const AcquireRequest& request,
                                                    AsyncExecutor& executor,
                                                    AcquireCompletion done) override;
  ReleaseOutcome release(const ReleaseRequest& request) override;
  // Sends the deletion of the node without waiting for it (a coroutine's thread, say, must
  // not wait a round trip); the reply reports.
  void release_unawaited(const ReleaseRequest& request,
                         const ReleaseReportHandler& report) override;
  bool sends_releases_unawaited() const override { return true; }
  void renew(std::span<RenewItem> items, SteadyClock::time_point deadline) override;
  const std::string& server() const override { return settings_.server; }
  bool supports_read_write() const override { return true; }
  // Each contender waits for the one just before it: arrival order, one wake-up per release.
  bool supports_fair() const override { return true; }
  // As Curator's InterProcessSemaphoreV2: a lease node each, counted under a mutex.
  bool supports_permits() const override { return true; }
  // The session timeout the server granted: the core caps ttls at it and renews at a third.
  std::optional<Millis> lease_time_limit() const override { return keeper_.session_timeout(); }
  void set_loss_alarm(std::function<void()> alarm) override;

 private:
  // A reentrant acquisition joins the owner's hold once the server confirms its node.
  std::optional<Grant> reenter(const AcquireRequest& request, const std::string& path);
  // Records what an acquisition won as its hold.
  Grant hold(const AcquireRequest& request, const std::string& path, Won won, bool contended);
  ReleaseOutcome delete_held(std::string_view name, const HeldNode& held);
  void session_ended(const Session& session);
  void check_chroot();

  const ZooKeeperSettings settings_;
  StatsCounters& stats_;
  const Requests requests_;
  const Acls acls_;
  Holds holds_;
  std::mutex alarm_mutex_;
  std::function<void()> alarm_;
  SessionKeeper keeper_;
  Reaper reaper_;
  const ZkContext context_;
  // The reaper, for the replies to deletions not awaited, which may come as the backend goes
  // (closing the session answers them): cleared first thing then.
  struct ReaperHandle {
    std::mutex mutex;
    Reaper* reaper = nullptr;
  };
  const std::shared_ptr<ReaperHandle> reaper_handle_ = std::make_shared<ReaperHandle>();
};

ZooKeeperBackend::ZooKeeperBackend(ZooKeeperSettings settings, StatsCounters& stats)
    : settings_(std::move(settings)),
      stats_(stats),
      requests_(stats_, settings_.command_timeout),
      acls_(settings_.credentials.has_value()),
      keeper_(settings_, stats_),
      reaper_(keeper_, requests_),
      context_{settings_, stats_, requests_, acls_, keeper_, reaper_} {
  reaper_handle_->reaper = &reaper_;
  keeper_.on_session_end([this](const Session& session) { session_ended(session); });
  check_chroot();
}

ZooKeeperBackend::~ZooKeeperBackend() {
  // The alarm reaches into the core, which may be going: no more calls.
  set_loss_alarm({});
  const std::lock_guard lock(reaper_handle_->mutex);
  reaper_handle_->reaper = nullptr;
}

void ZooKeeperBackend::check_chroot() {
  if (settings_.chroot.empty()) return;
  const auto session = context_.ready_session("");
  const int rc = requests_.exists(*session, "/").rc;
  if (rc == ZNONODE)
    throw ConfigError("", settings_.server,
                      "the chroot '" + settings_.chroot + "' does not exist; create it first");
  if (rc != ZOK)
    throw status::unavailable(
        "", settings_.server,
        "could not read the chroot '" + settings_.chroot + "': " + status::reason(rc));
}

void ZooKeeperBackend::set_loss_alarm(std::function<void()> alarm) {
  std::lock_guard lock(alarm_mutex_);
  alarm_ = std::move(alarm);
}

// On the keeper's thread: the session's nodes are gone, so are its holds. The alarm makes the
// core renew every lease now; the renewals find their holds gone and report the losses.
void ZooKeeperBackend::session_ended(const Session& session) {
  holds_.drop_session(session.id());
  // Called under the lock, so that replacing the alarm (with nothing, when the client goes)
  // waits for a call in flight.
  std::lock_guard lock(alarm_mutex_);
  if (alarm_) alarm_();
}

std::optional<Grant> ZooKeeperBackend::acquire(const AcquireRequest& request) {
  const std::string path = lock_path(request.hold.name);
  if (request.hold.kind.semaphore()) {
    SemaphoreContention contention(context_, request, path);
    auto won = contention.run();
    if (!won) return std::nullopt;
    return hold(request, path, std::move(*won), contention.contended());
  }
  if (auto grant = reenter(request, path)) return grant;

  std::optional<HeldNode> write_hold;
  if (request.hold.kind.mode == Mode::read) {
    write_hold = holds_.find(path, request.hold.owner, Side::exclusive);
  } else if (const auto read_hold = holds_.find(path, request.hold.owner, Side::shared);
             read_hold && read_hold->session == keeper_.current()->id()) {
    // Our own read node is ahead of the write node we would create: we would wait for
    // ourselves. Curator deadlocks here; say so instead.
    const std::string lock(request.hold.name);
    throw ConfigError(lock, settings_.server,
                      "this thread holds the read lock: taking the write lock would wait for "
                      "itself (a read lock cannot be upgraded; release it first)");
  }

  Contention contention(context_, request, path, std::move(write_hold),
                        AcquisitionDeadline(request.deadline));
  auto won = contention.run();
  if (!won) return std::nullopt;
  return hold(request, path, std::move(*won), contention.contended());
}

// An asynchronous acquisition holds under an owner token of its own (ClientCore::prepare): it
// re-enters nothing and holds no write lock for a read to sort with, so it contends at once.
std::shared_ptr<PendingAcquisition> ZooKeeperBackend::acquire_async(const AcquireRequest& request,
                                                                    AsyncExecutor& executor,
                                                                    AcquireCompletion done) {
  std::string path = lock_path(request.hold.name);
  // On the executor's thread, in the contention's completion task.
  auto granted = [this, request, path, done = std::move(done)](
                     std::optional<Won> won, bool contended, std::exception_ptr error) mutable {
    if (!won) {
      done(std::nullopt, std::move(error));
      return;
    }
    done(hold(request, path, std::move(*won), contended), nullptr);
  };
  if (request.hold.kind.semaphore()) {
    auto waiter = std::make_shared<AsyncSemaphoreContention>(context_, request, std::move(path),
                                                             executor, std::move(granted));
    waiter->start();
    return waiter;
  }
  auto waiter = std::make_shared<AsyncContention>(context_, request, std::move(path), std::nullopt,
                                                  executor, std::move(granted));
  waiter->start();
  return waiter;
}

// A permit is a hold of its own, keyed by its acquisition id (it never reenters); renewal and
// release then treat it as any other hold.
Grant ZooKeeperBackend::hold(const AcquireRequest& request, const std::string& path, Won won,
                             bool contended) {
  const Grant grant{won.node.fence, won.sent_at, contended};
  if (request.hold.kind.semaphore())
    holds_.add(path, request.hold.acquisition_id, Side::permit, std::move(won.node),
               request.hold.acquisition_id);
  else
    holds_.add(path, request.hold.owner, side_of(request.hold.kind.mode), std::move(won.node),
               request.hold.acquisition_id);
  return grant;
}

std::optional<Grant> ZooKeeperBackend::reenter(const AcquireRequest& request,
                                               const std::string& path) {
  const Side side = side_of(request.hold.kind.mode);
  const auto held = holds_.find(path, request.hold.owner, side);
  if (!held) return std::nullopt;
  for (;;) {
    const auto session = context_.ready_session(request.hold.name);
    if (session->id() != held->session) {
      // Its session ended, and the node with it.
      holds_.forget(path, request.hold.owner, side, held->node);
      return std::nullopt;
    }
    const auto checked = requests_.exists(*session, held->node);
    if (checked.rc == ZOK && checked.stat.ephemeralOwner == session->id()) {
      if (!holds_.join(path, request.hold.owner, side, held->node, request.hold.acquisition_id))
        return std::nullopt;
      return Grant{held->fence, checked.sent_at};
    }
    if (checked.rc == ZOK || checked.rc == ZNONODE) {
      // Deleted behind our back: the earlier leases are lost; contend anew.
      holds_.forget(path, request.hold.owner, side, held->node);
      return std::nullopt;
    }
    if (status::connection_trouble(checked.rc) || status::session_gone(checked.rc)) continue;
    throw status::unavailable(
        request.hold.name, settings_.server,
        "checking the held node " + held->node + ": " + status::reason(checked.rc));
  }
}

ReleaseOutcome ZooKeeperBackend::release(const ReleaseRequest& request) {
  const HoldId& hold = request.hold;
  auto removal = holds_.remove(hold.acquisition_id);
  if (!removal.known) return ReleaseOutcome::not_held;
  if (!removal.ended) return ReleaseOutcome::released;  // other acquisitions share the node
  return delete_held(hold.name, *removal.ended);
}

ReleaseOutcome ZooKeeperBackend::delete_held(std::string_view name, const HeldNode& held) {
  for (;;) {
    std::shared_ptr<Session> session;
    try {
      session = context_.ready_session(name);
    } catch (const BackendUnavailable& error) {
      reaper_.remove(held.node, held.session);
      throw status::unavailable(name, settings_.server,
                                std::string(error.what()) +
                                    "; the lock node will be deleted once the server is back (or "
                                    "goes with the session)");
    }
    // Another session: ours ended, and the node with it.
    if (session->id() != held.session) return ReleaseOutcome::not_held;
    const int rc = requests_.remove(*session, held.node).rc;
    if (rc == ZOK) return ReleaseOutcome::released;
    if (rc == ZNONODE) return ReleaseOutcome::not_held;
    if (status::connection_trouble(rc) || status::session_gone(rc)) continue;
    reaper_.remove(held.node, held.session);
    throw status::unavailable(name, settings_.server,
                              "deleting the lock node " + held.node + ": " + status::reason(rc));
  }
}

void ZooKeeperBackend::release_unawaited(const ReleaseRequest& request,
                                         const ReleaseReportHandler& report) {
  const HoldId& hold = request.hold;
  auto removal = holds_.remove(hold.acquisition_id);
  if (!removal.known) {
    report({ReleaseOutcome::not_held, {}});
    return;
  }
  if (!removal.ended) {
    report({ReleaseOutcome::released, {}});  // other acquisitions share the node
    return;
  }
  const HeldNode held = *removal.ended;
  const auto session = keeper_.current();
  // Another session: ours ended, and the node with it.
  if (!session || session->id() != held.session) {
    report({ReleaseOutcome::not_held, {}});
    return;
  }
  requests_.remove_ahead(
      *session, held.node,
      [report, held, reaper = reaper_handle_,
       failure = std::string(
           status::unavailable(hold.name, settings_.server, "deleting the lock node " + held.node)
               .what())](const Reply& reply) {
        ReleaseReport made;
        // Closing the session (the client's end) deletes its nodes too.
        if (reply.rc == ZOK || reply.rc == ZCLOSING) {
          made.outcome = ReleaseOutcome::released;
        } else if (reply.rc == ZNONODE || status::session_gone(reply.rc)) {
          made.outcome = ReleaseOutcome::not_held;
        } else {
          {
            const std::lock_guard lock(reaper->mutex);
            if (reaper->reaper != nullptr) reaper->reaper->remove(held.node, held.session);
          }
          made.failure = failure + ": " + status::reason(reply.rc) +
                         "; the lock node will be deleted once the server is back (or goes with "
                         "the session)";
        }
        report(made);
      });
}

// The session bounds validity here: a stalled server shows as a disconnected session, which
// fails the renewal at once, so `deadline` needs no separate wait.
void ZooKeeperBackend::renew(std::span<RenewItem> items, SteadyClock::time_point) {
  const auto session = keeper_.current();
  // Which node each item holds; several reentrant items may share one.
  std::vector<std::optional<HeldNode>> held(items.size());
  std::map<std::string, std::size_t> slot_of;
  std::vector<std::string> nodes;
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto& item = items[i];
    held[i] = holds_.of(item.hold.acquisition_id);
    if (!held[i] || !session || held[i]->session != session->id() || session->dead()) {
      item.outcome = RenewItem::Outcome::lost;  // never held, released, or its session ended
      held[i].reset();
      continue;
    }
    if (!session->ready()) {
      item.outcome = RenewItem::Outcome::failed;
      item.error = "disconnected from ZooKeeper";
      held[i].reset();
      continue;
    }
    if (slot_of.emplace(held[i]->node, nodes.size()).second) nodes.push_back(held[i]->node);
  }
  if (nodes.empty()) return;

  // A node that still exists in our session is still ours: the session is the lease.
  const auto replies = requests_.exists_all(*session, nodes);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!held[i]) continue;
    auto& item = items[i];
    const auto& reply = replies[slot_of.at(held[i]->node)];
    if (reply.rc == ZOK && reply.stat.ephemeralOwner == session->id()) {
      item.outcome = RenewItem::Outcome::renewed;
      item.error.clear();
    } else if (reply.rc == ZOK || reply.rc == ZNONODE || status::session_gone(reply.rc)) {
      item.outcome = RenewItem::Outcome::lost;
    } else {
      item.outcome = RenewItem::Outcome::failed;
      item.error = status::reason(reply.rc);
    }
  }
}

}  // namespace

std::unique_ptr<Backend> make_backend(const Url& url, const Options& options,
                                      StatsCounters& stats) {
  return std::make_unique<ZooKeeperBackend>(zookeeper_settings(url, options), stats);
}

}  // namespace distlock::detail::zookeeper
