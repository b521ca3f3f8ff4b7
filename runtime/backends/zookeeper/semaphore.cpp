// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/semaphore.h"

#include <algorithm>
#include <tuple>

#include <distlock/log.h>

#include "backends/zookeeper/lock_nodes.h"
#include "backends/zookeeper/status.h"

namespace distlock::detail::zookeeper {

ChildrenWatch::ChildrenWatch(std::shared_ptr<Session> session, Wakeup::OnWoken on_woken)
    : session_(std::move(session)),
      wakeup_(std::make_shared<Wakeup>(
          [](Session&, const std::shared_ptr<Wakeup>& woken) {
            woken->notify(Wakeup::Cause::node_event);
          },
          std::move(on_woken))),
      id_(session_->add_watch(wakeup_)) {}

ChildrenWatch::~ChildrenWatch() { session_->remove_watch(id_); }

SemaphoreContention::SemaphoreContention(const ZkContext& context, const AcquireRequest& request,
                                         std::string path)
    : context_(context),
      request_(request),
      deadline_(request.deadline),
      path_(std::move(path)),
      leases_(semaphore_leases_path(path_)),
      mutex_path_(semaphore_mutex_path(path_)),
      mutex_request_{request_.hold, request_.ttl, false, false, request_.deadline} {
  mutex_request_.hold.kind = LockKind{};
}

void SemaphoreContention::fail(int rc, const std::string& doing) const {
  status::throw_failure(request_.hold.name, context_.settings.server, leases_, rc, doing);
}

bool SemaphoreContention::same_session_again(const std::shared_ptr<Session>& session) const {
  return context_.session_for(request_.hold.name, outage_ ? &*outage_ : nullptr, deadline_,
                              ZkContext::Trouble::met) == session;
}

std::shared_ptr<Session> SemaphoreContention::ready_session() const {
  return context_.session_for(request_.hold.name, outage_ ? &*outage_ : nullptr, deadline_,
                              ZkContext::Trouble::none);
}

std::optional<Won> SemaphoreContention::run() {
  outage_.emplace(context_.settings.outage_limit);
  for (bool first = true;; first = false) {
    if (!first && SteadyClock::now() >= request_.deadline) return std::nullopt;
    Contention mutex_contention(context_, mutex_request_, mutex_path_, std::nullopt, deadline_);
    const auto mutex = mutex_contention.run();
    if (!mutex) return std::nullopt;
    const auto session = holding_mutex(*mutex, mutex_contention.contended());
    if (!session) continue;
    // Released when this round ends, whatever came of it, as Curator releases it.
    OwnNode held_mutex(context_, session, mutex->node.node, deadline_);
    std::optional<Won> won;
    switch (take_lease(session, won)) {
      case Next::won:
        return won;
      case Next::timed_out:
        return std::nullopt;
      case Next::wait:
      case Next::list_again:
      case Next::start_over:
        break;
    }
  }
}

std::shared_ptr<Session> SemaphoreContention::holding_mutex(const Won& mutex,
                                                            bool mutex_contended) {
  contended_ = contended_ || mutex_contended;
  auto session = ready_session();
  // Its session ended meanwhile, and the mutex node with it.
  if (session->id() != mutex.node.session) return nullptr;
  return session;
}

std::optional<CreatedLease> SemaphoreContention::create_lease(
    const std::shared_ptr<Session>& session, std::uint64_t watch_id, ChildrenReply& listed) {
  const std::string uuid = random_uuid();
  CreatedLease ours{lease_prefix(uuid), {}};
  const std::string data = context_.node_data(request_.hold.acquisition_id);
  CreateReply& created = ours.created;
  for (int parent_rounds = 0;;) {
    std::tie(created, listed) = context_.requests.create_and_list(
        *session, leases_ + "/" + ours.prefix, ZOO_EPHEMERAL_SEQUENTIAL, context_.acls.lock(), data,
        leases_, watch_id, deadline_.for_steps());
    if (created.rc != ZNONODE) break;
    if (++parent_rounds > kParentRounds)
      fail(created.rc, "creating the leases node " + leases_ + " kept failing");
    const int rc = context_.requests
                       .create(*session, leases_, ZOO_CONTAINER, context_.acls.lock(), {},
                               deadline_.for_steps())
                       .rc;
    if (rc == ZOK || rc == ZNODEEXISTS) continue;
    if (status::session_gone(rc)) return std::nullopt;
    if (!status::connection_trouble(rc)) fail(rc, "creating the leases node " + leases_);
    if (!same_session_again(session)) return std::nullopt;
  }
  if (status::session_gone(created.rc)) return std::nullopt;
  if (status::connection_trouble(created.rc)) {
    // The create may have been applied or not. Whatever bears our uuid, the reaper deletes
    // (the session's later requests come after the create); the next round has a new uuid.
    context_.reaper.sweep(leases_, uuid, session->id(), SteadyClock::now());
    return std::nullopt;
  }
  if (created.rc != ZOK) fail(created.rc, "creating a lease node");
  return ours;
}

Judged SemaphoreContention::judge_leases(const std::shared_ptr<Session>& session, OwnNode& lease,
                                         const CreatedLease& ours, const ChildrenReply& listed) {
  if (const auto next =
          listing_trouble(listed.rc, lease, [&] { return same_session_again(session); }))
    return Judged::to(*next);
  if (listed.rc != ZOK && listed.rc != ZNONODE) fail(listed.rc, "listing the leases");
  const auto& leases = listed.children;
  const std::string name = base_name(ours.created.path);
  if (std::find(leases.begin(), leases.end(), name) == leases.end()) {
    // Deleted behind our back (or gone with the session): start over.
    lease.gone();
    detail::log(LogLevel::warning,
                detail::failure_message(request_.hold.name, context_.settings.server,
                                        "our lease node " + ours.created.path +
                                            " vanished while waiting; contending again"));
    return Judged::to(Next::start_over);
  }
  if (leases.size() <= request_.hold.kind.permits) {
    lease.keep();
    return Judged::winning(
        Won{HeldNode{ours.created.path, name.substr(ours.prefix.size()),
                     static_cast<std::uint64_t>(ours.created.stat.czxid), session->id()},
            listed.sent_at});
  }
  if (SteadyClock::now() >= request_.deadline) return Judged::to(Next::timed_out);
  if (!contended_) {
    contended_ = true;
    ++context_.stats.contended;
  }
  // All taken: the listing left a watch on the leases, and a lease that goes wakes us.
  return Judged::to(Next::wait);
}

ChildrenReply SemaphoreContention::list_leases(const std::shared_ptr<Session>& session,
                                               std::uint64_t watch_id) const {
  return context_.requests.children(*session, leases_, watch_id, deadline_.for_steps());
}

void SemaphoreContention::count_wake(Wakeup::Cause cause) const {
  if (cause == Wakeup::Cause::node_event) ++context_.stats.woken_by_release;
  if (cause == Wakeup::Cause::none) ++context_.stats.woken_by_timeout;
  // session_event: the next listing finds the session gone.
}

Next SemaphoreContention::take_lease(const std::shared_ptr<Session>& session,
                                     std::optional<Won>& won) {
  std::optional<ChildrenWatch> watch(std::in_place, session);
  ChildrenReply listed;
  const auto ours = create_lease(session, watch->id(), listed);
  if (!ours) return Next::start_over;
  // Deleted at once if we give up (a timed-out waiter must not hold a place among the N).
  OwnNode lease(context_, session, ours->created.path, deadline_);
  for (;;) {
    Judged judged = judge_leases(session, lease, *ours, listed);
    switch (judged.next) {
      case Next::won:
        won = std::move(judged.won);
        return Next::won;
      case Next::timed_out:
      case Next::start_over:
        return judged.next;
      case Next::list_again:
        break;
      case Next::wait: {
        Wakeup::Cause cause = Wakeup::Cause::none;
        {
          WaitingScope waiting(context_.stats);
          cause = watch->wakeup().wait_until(request_.deadline);
        }
        count_wake(cause);
        break;
      }
    }
    watch.emplace(session);
    listed = list_leases(session, watch->id());
  }
}

}  // namespace distlock::detail::zookeeper
