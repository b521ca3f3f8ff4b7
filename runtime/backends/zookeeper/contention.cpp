// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/contention.h"

#include <distlock/log.h>

#include "backends/zookeeper/lock_nodes.h"
#include "backends/zookeeper/status.h"
#include "backends/zookeeper/wakeup.h"

namespace distlock::detail::zookeeper {

Contention::Contention(const ZkContext& context, const AcquireRequest& request, std::string path,
                       std::optional<HeldNode> write_hold, const AcquisitionDeadline& deadline)
    : context_(context),
      request_(request),
      deadline_(deadline),
      path_(std::move(path)),
      write_hold_(std::move(write_hold)) {}

void Contention::fail(int rc, const std::string& doing) const {
  status::throw_failure(request_.hold.name, context_.settings.server, path_, rc, doing);
}

bool Contention::same_session_again(const std::shared_ptr<Session>& session) const {
  return context_.session_for(request_.hold.name, outage_ ? &*outage_ : nullptr, deadline_,
                              ZkContext::Trouble::met) == session;
}

std::shared_ptr<Session> Contention::ready_session() const {
  return context_.session_for(request_.hold.name, outage_ ? &*outage_ : nullptr, deadline_,
                              ZkContext::Trouble::none);
}

std::shared_ptr<Session> Contention::begin_round() {
  auto session = ready_session();
  // A read by the write holder sorts with its write node, in the same session only.
  downgrade_.reset();
  if (write_hold_ && write_hold_->session == session->id()) downgrade_ = write_hold_;
  return session;
}

std::optional<Won> Contention::downgraded(const std::shared_ptr<Session>& session, OwnNode& own,
                                          const Entered& entered) const {
  if (!downgrade_) return std::nullopt;
  own.keep();
  return Won{HeldNode{entered.path, downgrade_->sequence,
                      static_cast<std::uint64_t>(entered.stat.czxid), session->id()},
             entered.sent_at};
}

std::optional<Won> Contention::run() {
  outage_.emplace(context_.settings.outage_limit);
  for (bool first = true;; first = false) {
    if (!first && SteadyClock::now() >= request_.deadline) return std::nullopt;
    const auto session = begin_round();
    auto entered = enter(session);
    if (!entered) continue;
    OwnNode own(context_, session, entered->path, deadline_);
    if (auto won = downgraded(session, own, *entered)) return won;
    std::optional<Won> won;
    switch (contend(session, own, *entered, won)) {
      case Outcome::won:
        return won;
      case Outcome::timed_out:
        return std::nullopt;
      case Outcome::session_ended:
        break;
    }
  }
}

std::optional<Contention::Entered> Contention::enter(const std::shared_ptr<Session>& session) {
  const std::string data = context_.node_data(request_.hold.acquisition_id);
  for (int parent_rounds = 0;;) {
    const std::string uuid = random_uuid();
    std::string name = request_.hold.kind.election
                           ? latch_prefix(uuid)
                           : contender_prefix(uuid, request_.hold.kind.mode);
    int mode = ZOO_EPHEMERAL_SEQUENTIAL;
    if (downgrade_) {
      name += downgrade_->sequence;
      mode = ZOO_EPHEMERAL;
    }
    const std::string path = path_ + "/" + name;
    CreateReply created;
    std::optional<ChildrenReply> listed;
    if (downgrade_) {
      // Granted with the write node, whoever else waits: nothing to list.
      created = context_.requests.create(*session, path, mode, context_.acls.lock(), data,
                                         deadline_.for_steps());
    } else {
      auto replies = context_.requests.create_and_list(*session, path, mode, context_.acls.lock(),
                                                       data, path_, 0, deadline_.for_steps());
      created = std::move(replies.first);
      listed = std::move(replies.second);
    }
    if (created.rc == ZOK)
      return Entered{created.path, created.stat, created.sent_at, std::move(listed)};
    if (status::session_gone(created.rc)) return std::nullopt;
    if (created.rc == ZNONODE) {
      if (++parent_rounds > kParentRounds)
        fail(created.rc, "creating the lock node's parents (" + path_ + ") kept failing");
      make_parents(session);
      continue;
    }
    if (!status::connection_trouble(created.rc)) fail(created.rc, "creating a contender node");

    // The create may have been applied or not: look for our uuid once connected again.
    bool session_ended = false;
    if (auto found = recover(session, uuid, session_ended)) return found;
    if (session_ended) return std::nullopt;
    // Not there (or from an older session). Should it land late all the same, the reaper
    // deletes it; the next try has a new uuid.
    context_.reaper.sweep(path_, uuid, session->id(),
                          SteadyClock::now() + context_.keeper.session_timeout());
  }
}

std::optional<Contention::Entered> Contention::recover(const std::shared_ptr<Session>& session,
                                                       const std::string& uuid,
                                                       bool& session_ended) {
  for (;;) {
    bool same = false;
    try {
      same = same_session_again(session);
    } catch (const BackendUnavailable&) {
      // Our node may be there, in a session that may yet come back: the reaper looks.
      context_.reaper.sweep(path_, uuid, session->id(), SteadyClock::now());
      throw;
    }
    if (!same) {
      session_ended = true;
      return std::nullopt;
    }
    const auto listed = context_.requests.children(*session, path_, 0, deadline_.for_steps());
    if (status::connection_trouble(listed.rc)) continue;
    if (status::session_gone(listed.rc)) {
      session_ended = true;
      return std::nullopt;
    }
    if (listed.rc == ZNONODE) return std::nullopt;
    if (listed.rc != ZOK) fail(listed.rc, "looking for a contender node after a lost reply");
    const auto name = find_by_uuid(listed.children, uuid);
    if (!name) return std::nullopt;

    const std::string path = path_ + "/" + *name;
    const auto checked = context_.requests.exists(*session, path, deadline_.for_steps());
    if (status::connection_trouble(checked.rc)) continue;
    if (status::session_gone(checked.rc)) {
      session_ended = true;
      return std::nullopt;
    }
    if (checked.rc == ZNONODE) return std::nullopt;
    if (checked.rc != ZOK) fail(checked.rc, "reading a contender node after a lost reply");
    // A node of an older session is not trusted: it goes with that session.
    if (checked.stat.ephemeralOwner != session->id()) return std::nullopt;
    return Entered{path, checked.stat, checked.sent_at, std::nullopt};
  }
}

void Contention::make_parents(const std::shared_ptr<Session>& session) {
  auto containers = lock_path_parents(path_);
  containers.push_back(path_);
  for (std::size_t i = 0; i < containers.size();) {
    const auto& container = containers[i];
    const auto& acl = i == 0 ? context_.acls.root() : context_.acls.lock();
    const int rc =
        context_.requests.create(*session, container, ZOO_CONTAINER, acl, {}, deadline_.for_steps())
            .rc;
    if (rc == ZOK || rc == ZNODEEXISTS) {
      ++i;
      continue;
    }
    if (rc == ZNONODE && i == 0) {
      const std::string lock(request_.hold.name);
      throw ConfigError(
          lock, context_.settings.server,
          "the chroot '" + context_.settings.chroot + "' does not exist; create it first");
    }
    // The one above went meanwhile (an empty container the server removed): from the top.
    if (rc == ZNONODE) return;
    if (status::session_gone(rc)) return;
    if (!status::connection_trouble(rc)) fail(rc, "creating the lock node " + container);
    if (!same_session_again(session)) return;
  }
}

Contention::Outcome Contention::contend(const std::shared_ptr<Session>& session, OwnNode& own,
                                        Entered& entered, std::optional<Won>& won) {
  // A listing asked for already: right behind the create, or when the contender we waited
  // behind went.
  std::optional<ChildrenReply> next = std::move(entered.listed);
  for (;;) {
    const ChildrenReply listed = next ? std::move(*next) : list(session);
    next.reset();
    Judged judged = judge_listing(session, own, entered, listed);
    switch (judged.next) {
      case Next::won:
        won = std::move(judged.won);
        return Outcome::won;
      case Next::timed_out:
        return Outcome::timed_out;
      case Next::start_over:
        return Outcome::session_ended;
      case Next::list_again:
        continue;
      case Next::wait:
        break;
    }
    const WaitBehind wait = wait_behind(session, judged.watch);
    auto cause = Wakeup::Cause::watch_failed;
    int failure = wait.sent;
    const bool waited = failure == ZOK;
    if (waited) {
      WaitingScope waiting(context_.stats);
      cause = wait.wakeup->wait_until(request_.deadline);
      failure = wait.wakeup->failure();
    }
    session->remove_watch(wait.watch_id);
    if (after_wait(session, own, wait, cause, failure, waited, next) == Next::start_over)
      return Outcome::session_ended;
  }
}

std::optional<Next> listing_trouble(int rc, OwnNode& own,
                                    const std::function<bool()>& same_session_again) {
  if (status::session_gone(rc)) {
    own.gone();
    return Next::start_over;
  }
  if (!status::connection_trouble(rc)) return std::nullopt;
  if (same_session_again()) return Next::list_again;
  own.gone();
  return Next::start_over;
}

ChildrenReply Contention::list(const std::shared_ptr<Session>& session) const {
  return context_.requests.children(*session, path_, 0, deadline_.for_steps());
}

Judged Contention::judge_listing(const std::shared_ptr<Session>& session, OwnNode& own,
                                 const Entered& entered, const ChildrenReply& listed) {
  if (const auto next =
          listing_trouble(listed.rc, own, [&] { return same_session_again(session); }))
    return Judged::to(*next);
  if (listed.rc != ZOK && listed.rc != ZNONODE) fail(listed.rc, "listing the contenders");

  const std::string ours = base_name(entered.path);
  const auto verdict = judge(contenders(listed.children), ours, request_.hold.kind.mode);
  if (!verdict.present) {
    // Deleted behind our back (or gone with the session): start over.
    own.gone();
    detail::log(LogLevel::warning,
                detail::failure_message(request_.hold.name, context_.settings.server,
                                        "our contender node " + entered.path +
                                            " vanished while waiting; contending again"));
    return Judged::to(Next::start_over);
  }
  if (verdict.granted) {
    own.keep();
    std::string sequence;
    if (const auto parsed = parse_contender(ours)) sequence = parsed->sequence;
    return Judged::winning(
        Won{HeldNode{entered.path, sequence, static_cast<std::uint64_t>(entered.stat.czxid),
                     session->id()},
            listed.sent_at});
  }
  if (SteadyClock::now() >= request_.deadline) return Judged::to(Next::timed_out);
  if (!contended_) {
    contended_ = true;
    ++context_.stats.contended;
  }
  return Judged::waiting_behind(verdict.watch);
}

WaitBehind Contention::wait_behind(const std::shared_ptr<Session>& session,
                                   const std::string& watch, Wakeup::OnWoken on_woken) const {
  // Wait behind the one contender that must go first; nothing else wakes us. When it goes,
  // the completion thread lists the contenders at once, and the listing's reply wakes us.
  WaitBehind wait;
  wait.watched = watch;
  wait.relisted = std::make_shared<ChildrenReply>();
  wait.wakeup = std::make_shared<Wakeup>(
      [relisted = wait.relisted, &requests = context_.requests, path = path_](
          Session& watched, const std::shared_ptr<Wakeup>& woken) {
        requests.list_ahead(watched, path, [relisted, woken](ChildrenReply reply) {
          *relisted = std::move(reply);
          woken->notify(Wakeup::Cause::node_event);
        });
      },
      std::move(on_woken));
  wait.watch_id = session->add_watch(wait.wakeup);
  // The watch's reply wakes us only when it failed: its success just leaves us waiting.
  wait.sent = context_.requests.watch(*session, path_ + "/" + watch, wait.watch_id, wait.wakeup);
  return wait;
}

Next Contention::after_wait(const std::shared_ptr<Session>& session, OwnNode& own,
                            const WaitBehind& wait, Wakeup::Cause cause, int failure, bool waited,
                            std::optional<ChildrenReply>& next) {
  switch (cause) {
    case Wakeup::Cause::node_event:
      ++context_.stats.woken_by_release;
      // Written before the wake-up, which the wakeup's mutex orders after it.
      next = std::move(*wait.relisted);
      break;
    case Wakeup::Cause::none:
      ++context_.stats.woken_by_timeout;
      break;
    case Wakeup::Cause::session_event:
      break;  // the next listing finds the session gone
    case Wakeup::Cause::watch_failed:
      // Gone already: it left after our listing, and when we were waiting by then (the
      // refusal answers a request sent before), that release is what ended the wait. Look
      // again, keeping our place.
      if (failure == ZNONODE) {
        if (waited) ++context_.stats.woken_by_release;
        break;
      }
      if (status::session_gone(failure)) {
        own.gone();
        return Next::start_over;
      }
      if (!status::connection_trouble(failure)) fail(failure, "watching " + wait.watched);
      if (!same_session_again(session)) {
        own.gone();
        return Next::start_over;
      }
      break;
  }
  return Next::list_again;
}

}  // namespace distlock::detail::zookeeper
