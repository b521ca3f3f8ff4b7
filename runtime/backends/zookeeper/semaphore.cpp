// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/semaphore.h"

#include <algorithm>
#include <tuple>

#include <distlock/log.h>

#include "backends/zookeeper/lock_nodes.h"
#include "backends/zookeeper/own_node.h"
#include "backends/zookeeper/status.h"
#include "backends/zookeeper/wakeup.h"

namespace distlock::detail::zookeeper {
namespace {

// A watch registered with the session for as long as the scope lasts; a listing sent with its
// id leaves it on the children, and any change to them wakes the waiter.
class ChildrenWatch {
 public:
  explicit ChildrenWatch(std::shared_ptr<Session> session)
      : session_(std::move(session)),
        wakeup_(std::make_shared<Wakeup>([](Session&, const std::shared_ptr<Wakeup>& woken) {
          woken->notify(Wakeup::Cause::node_event);
        })),
        id_(session_->add_watch(wakeup_)) {}
  ~ChildrenWatch() { session_->remove_watch(id_); }
  ChildrenWatch(const ChildrenWatch&) = delete;
  ChildrenWatch& operator=(const ChildrenWatch&) = delete;

  std::uint64_t id() const { return id_; }
  Wakeup& wakeup() const { return *wakeup_; }

 private:
  const std::shared_ptr<Session> session_;
  const std::shared_ptr<Wakeup> wakeup_;
  const std::uint64_t id_;
};

}  // namespace

SemaphoreContention::SemaphoreContention(const ZkContext& context, const AcquireRequest& request,
                                         std::string path)
    : context_(context),
      request_(request),
      path_(std::move(path)),
      leases_(semaphore_leases_path(path_)) {}

void SemaphoreContention::fail(int rc, const std::string& doing) const {
  status::throw_failure(request_.hold.name, context_.settings.server, leases_, rc, doing);
}

bool SemaphoreContention::same_session_again(const std::shared_ptr<Session>& session) const {
  return context_.ready_session(request_.hold.name) == session;
}

std::optional<Won> SemaphoreContention::run() {
  // The mutex is an exclusive lock of its own; only its deadline comes from the request.
  AcquireRequest mutex_request{request_.hold, request_.ttl, false, false, request_.deadline};
  mutex_request.hold.kind = LockKind{};
  const std::string mutex_path = semaphore_mutex_path(path_);
  for (bool first = true;; first = false) {
    if (!first && SteadyClock::now() >= request_.deadline) return std::nullopt;
    Contention mutex_contention(context_, mutex_request, mutex_path, std::nullopt);
    const auto mutex = mutex_contention.run();
    contended_ = contended_ || mutex_contention.contended();
    if (!mutex) return std::nullopt;
    const auto session = context_.ready_session(request_.hold.name);
    // Its session ended meanwhile, and the mutex node with it.
    if (session->id() != mutex->node.session) continue;
    // Released when this round ends, whatever came of it, as Curator releases it.
    OwnNode held_mutex(context_, session, mutex->node.node);
    std::optional<Won> won;
    switch (take_lease(session, won)) {
      case Outcome::won:
        return won;
      case Outcome::timed_out:
        return std::nullopt;
      case Outcome::start_over:
        break;
    }
  }
}

SemaphoreContention::Outcome SemaphoreContention::take_lease(
    const std::shared_ptr<Session>& session, std::optional<Won>& won) {
  const std::string uuid = random_uuid();
  const std::string prefix = lease_prefix(uuid);
  std::optional<ChildrenWatch> watch(std::in_place, session);
  const std::string data = context_.node_data(request_.hold.acquisition_id);
  CreateReply created;
  ChildrenReply listed;
  for (int parent_rounds = 0;;) {
    std::tie(created, listed) = context_.requests.create_and_list(
        *session, leases_ + "/" + prefix, ZOO_EPHEMERAL_SEQUENTIAL, context_.acls.lock(), data,
        leases_, watch->id());
    if (created.rc != ZNONODE) break;
    if (++parent_rounds > kParentRounds)
      fail(created.rc, "creating the leases node " + leases_ + " kept failing");
    const int rc =
        context_.requests.create(*session, leases_, ZOO_CONTAINER, context_.acls.lock()).rc;
    if (rc == ZOK || rc == ZNODEEXISTS) continue;
    if (status::session_gone(rc)) return Outcome::start_over;
    if (!status::connection_trouble(rc)) fail(rc, "creating the leases node " + leases_);
    if (!same_session_again(session)) return Outcome::start_over;
  }
  if (status::session_gone(created.rc)) return Outcome::start_over;
  if (status::connection_trouble(created.rc)) {
    // The create may have been applied or not. Whatever bears our uuid, the reaper deletes
    // (the session's later requests come after the create); the next round has a new uuid.
    context_.reaper.sweep(leases_, uuid, session->id(), SteadyClock::now());
    return Outcome::start_over;
  }
  if (created.rc != ZOK) fail(created.rc, "creating a lease node");

  // Deleted at once if we give up (a timed-out waiter must not hold a place among the N).
  OwnNode lease(context_, session, created.path);
  const std::string ours = base_name(created.path);
  for (;;) {
    if (status::session_gone(listed.rc)) {
      lease.gone();
      return Outcome::start_over;
    }
    if (status::connection_trouble(listed.rc)) {
      if (!same_session_again(session)) {
        lease.gone();
        return Outcome::start_over;
      }
    } else {
      if (listed.rc != ZOK && listed.rc != ZNONODE) fail(listed.rc, "listing the leases");
      const auto& leases = listed.children;
      if (std::find(leases.begin(), leases.end(), ours) == leases.end()) {
        // Deleted behind our back (or gone with the session): start over.
        lease.gone();
        detail::log(LogLevel::warning,
                    detail::failure_message(request_.hold.name, context_.settings.server,
                                            "our lease node " + created.path +
                                                " vanished while waiting; contending again"));
        return Outcome::start_over;
      }
      if (leases.size() <= request_.hold.kind.permits) {
        lease.keep();
        won = Won{HeldNode{created.path, ours.substr(prefix.size()),
                           static_cast<std::uint64_t>(created.stat.czxid), session->id()},
                  listed.sent_at};
        return Outcome::won;
      }
      if (SteadyClock::now() >= request_.deadline) return Outcome::timed_out;
      if (!contended_) {
        contended_ = true;
        ++context_.stats.contended;
      }

      // All taken: the listing left a watch on the leases, and a lease that goes wakes us.
      Wakeup::Cause cause = Wakeup::Cause::none;
      {
        WaitingScope waiting(context_.stats);
        cause = watch->wakeup().wait_until(request_.deadline);
      }
      if (cause == Wakeup::Cause::node_event) ++context_.stats.woken_by_release;
      if (cause == Wakeup::Cause::none) ++context_.stats.woken_by_timeout;
      // session_event: the next listing finds the session gone.
    }
    watch.emplace(session);
    listed = context_.requests.children(*session, leases_, watch->id());
  }
}

}  // namespace distlock::detail::zookeeper
