// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/requests.h"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "backends/zookeeper/status.h"
#include "core/step_deadline.h"

namespace distlock::detail::zookeeper {
namespace {

// What a completion fills in and its caller waits for. The caller may stop waiting (the
// command timeout); the completion still finds it, through its own reference.
template <class R>
struct Pending {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  R reply;
};

template <class R>
using PendingRef = std::shared_ptr<Pending<R>>;

// The completion's `data`: a reference on the heap, which the completion releases, counted
// as unanswered by its session until then.
template <class R>
struct Handed {
  Handed(Session& session, PendingRef<R> pending)
      : unanswered(session), pending(std::move(pending)) {}
  Session::Unanswered unanswered;
  PendingRef<R> pending;
};

template <class R, class Fill>
void complete(const void* data, Fill&& fill) {
  const std::unique_ptr<Handed<R>> owner(static_cast<Handed<R>*>(const_cast<void*>(data)));
  Pending<R>& pending = *owner->pending;
  {
    std::lock_guard lock(pending.mutex);
    fill(pending.reply);
    pending.done = true;
  }
  pending.done_cv.notify_all();
}

// A request on its way, its reply collected later: requests sent back to back are collected
// after the last one went out.
template <class R>
class Sent {
 public:
  Sent(PendingRef<R> pending, std::optional<SteadyClock::time_point> until,
       SteadyClock::time_point sent_at)
      : pending_(std::move(pending)), until_(until), sent_at_(sent_at) {}

  // Waits for the reply up to the time it was sent with (none: until the client answers);
  // status::kNoReply if it does not come by then.
  R reply() const {
    R reply;
    {
      std::unique_lock lock(pending_->mutex);
      const auto arrived = [&] { return pending_->done; };
      if (until_)
        pending_->done_cv.wait_until(lock, *until_, arrived);
      else
        pending_->done_cv.wait(lock, arrived);
      if (pending_->done)
        reply = pending_->reply;
      else
        reply.rc = status::kNoReply;
    }
    reply.sent_at = sent_at_;
    return reply;
  }

 private:
  PendingRef<R> pending_;
  std::optional<SteadyClock::time_point> until_;
  SteadyClock::time_point sent_at_;
};

// Sends with `submit(handle, data)` (a zoo_a* call); the reply is awaited through the result.
template <class R, class Submit>
Sent<R> send(Session& session, std::optional<SteadyClock::time_point> until, Submit&& submit) {
  auto pending = std::make_shared<Pending<R>>();
  auto handed = std::make_unique<Handed<R>>(session, pending);
  const auto sent_at = SteadyClock::now();
  const int rc = submit(session.handle(), handed.get());
  // Queued, or a marshalling error, which may come after the completion was queued: the
  // completion owns it now. Otherwise no completion will come.
  if (rc == ZOK || rc == ZMARSHALLINGERROR) static_cast<void>(handed.release());
  if (rc != ZOK) {
    std::lock_guard lock(pending->mutex);
    pending->reply.rc = rc;
    pending->done = true;
  }
  return Sent<R>(std::move(pending), until, sent_at);
}

// How long a create's reply is awaited: until the client answers (only its answer tells
// whether the node exists), unless the caller's wait ends first; that caller then learns
// nothing of its node, which the uuid in its name lets the reaper find.
std::optional<SteadyClock::time_point> creation_end(SteadyClock::time_point caller) {
  const auto until = step_deadline(caller, Millis::zero());
  if (until == SteadyClock::time_point::max()) return std::nullopt;
  return until;
}

void on_created(int rc, const char* path, const Stat* stat, const void* data) {
  complete<CreateReply>(data, [&](CreateReply& reply) {
    reply.rc = rc;
    if (rc != ZOK) return;
    if (path != nullptr) reply.path = path;
    if (stat != nullptr) reply.stat = *stat;
  });
}

void fill_children(ChildrenReply& reply, int rc, const String_vector* names) {
  reply.rc = rc;
  if (rc != ZOK || names == nullptr) return;
  reply.children.reserve(static_cast<std::size_t>(names->count));
  for (int i = 0; i < names->count; ++i) reply.children.emplace_back(names->data[i]);
}

void on_children(int rc, const String_vector* names, const void* data) {
  complete<ChildrenReply>(data, [&](ChildrenReply& reply) { fill_children(reply, rc, names); });
}

void on_stat(int rc, const Stat* stat, const void* data) {
  complete<StatReply>(data, [&](StatReply& reply) {
    reply.rc = rc;
    if (rc == ZOK && stat != nullptr) reply.stat = *stat;
  });
}

void on_read(int rc, const char* value, int value_length, const Stat* stat, const void* data) {
  complete<DataReply>(data, [&](DataReply& reply) {
    reply.rc = rc;
    if (rc != ZOK) return;
    if (value != nullptr && value_length > 0)
      reply.data.assign(value, static_cast<std::size_t>(value_length));
    if (stat != nullptr) reply.stat = *stat;
  });
}

void on_done(int rc, const void* data) {
  complete<Reply>(data, [&](Reply& reply) { reply.rc = rc; });
}

auto creation(const std::string& path, int mode, const ACL_vector& acl, std::string_view content) {
  return [&path, mode, &acl, content](zhandle_t* handle, const void* data) {
    // Empty content is no data at all (-1), as the container nodes always had.
    return zoo_acreate2(handle, path.c_str(), content.empty() ? nullptr : content.data(),
                        content.empty() ? -1 : static_cast<int>(content.size()), &acl, mode,
                        &on_created, data);
  };
}

auto listing(const std::string& path, std::uint64_t watch_id) {
  return [&path, watch_id](zhandle_t* handle, const void* data) {
    if (watch_id == 0) return zoo_aget_children(handle, path.c_str(), 0, &on_children, data);
    return zoo_awget_children(handle, path.c_str(), &Session::node_watcher,
                              Session::watch_context(watch_id), &on_children, data);
  };
}

// A request whose reply goes to a callback on the completion thread: the caller does not wait.
template <class R>
struct Ahead {
  Ahead(Session& session, std::function<void(R)> on_reply)
      : unanswered(session), on_reply(std::move(on_reply)) {}
  Session::Unanswered unanswered;
  std::function<void(R)> on_reply;
  SteadyClock::time_point sent_at = SteadyClock::now();
};

template <class R, class Fill>
void answer(const void* data, Fill&& fill) {
  const std::unique_ptr<Ahead<R>> ahead(static_cast<Ahead<R>*>(const_cast<void*>(data)));
  R reply;
  fill(reply);
  reply.sent_at = ahead->sent_at;
  ahead->on_reply(std::move(reply));
}

// Sends with `submit(handle, data)` (a zoo_a* call whose completion calls answer<R>); a
// request the client would not send is answered before this returns.
template <class R, class Submit>
void send_ahead(Session& session, std::function<void(R)> on_reply, Submit&& submit) {
  auto ahead = std::make_unique<Ahead<R>>(session, std::move(on_reply));
  const int rc = submit(session.handle(), ahead.get());
  // Sent: the completion's now. (So is a marshalling error's, which may come after the
  // completion was queued.)
  if (rc == ZOK || rc == ZMARSHALLINGERROR) {
    static_cast<void>(ahead.release());
    return;
  }
  R reply;
  reply.rc = rc;
  reply.sent_at = ahead->sent_at;
  ahead->on_reply(std::move(reply));
}

}  // namespace

Requests::Requests(StatsCounters& stats, Millis command_timeout)
    : stats_(stats), command_timeout_(command_timeout) {}

SteadyClock::time_point Requests::reply_end(SteadyClock::time_point caller) const {
  return step_deadline(caller, command_timeout_);
}

CreateReply Requests::create(Session& session, const std::string& path, int mode,
                             const ACL_vector& acl, std::string_view data,
                             SteadyClock::time_point caller) const {
  ++stats_.round_trips;
  return send<CreateReply>(session, creation_end(caller), creation(path, mode, acl, data)).reply();
}

ChildrenReply Requests::children(Session& session, const std::string& path, std::uint64_t watch_id,
                                 SteadyClock::time_point caller) const {
  ++stats_.round_trips;
  return send<ChildrenReply>(session, reply_end(caller), listing(path, watch_id)).reply();
}

std::pair<CreateReply, ChildrenReply> Requests::create_and_list(
    Session& session, const std::string& path, int mode, const ACL_vector& acl,
    std::string_view data, const std::string& parent, std::uint64_t watch_id,
    SteadyClock::time_point caller) const {
  ++stats_.round_trips;
  const auto created =
      send<CreateReply>(session, creation_end(caller), creation(path, mode, acl, data));
  const auto listed = send<ChildrenReply>(session, reply_end(caller), listing(parent, watch_id));
  // The listing is answered after the create: waiting for it first, the caller wakes once.
  auto children = listed.reply();
  return {created.reply(), std::move(children)};
}

void Requests::list_ahead(Session& session, const std::string& path,
                          std::function<void(ChildrenReply)> on_reply) const {
  ++stats_.round_trips;
  const auto on_listed = [](int rc, const String_vector* names, const void* data) {
    answer<ChildrenReply>(data, [&](ChildrenReply& reply) { fill_children(reply, rc, names); });
  };
  const strings_completion_t completion = on_listed;
  send_ahead(session, std::move(on_reply), [&](zhandle_t* handle, void* data) {
    return zoo_aget_children(handle, path.c_str(), 0, completion, data);
  });
}

StatReply Requests::exists(Session& session, const std::string& path,
                           SteadyClock::time_point caller) const {
  ++stats_.round_trips;
  return send<StatReply>(session, reply_end(caller),
                         [&](zhandle_t* handle, const void* data) {
                           return zoo_aexists(handle, path.c_str(), 0, &on_stat, data);
                         })
      .reply();
}

int Requests::watch(Session& session, const std::string& path, std::uint64_t watch_id,
                    const std::shared_ptr<Wakeup>& wakeup) const {
  ++stats_.round_trips;
  struct Watching {
    Watching(Session& session, std::shared_ptr<Wakeup> wakeup)
        : unanswered(session), wakeup(std::move(wakeup)) {}
    Session::Unanswered unanswered;
    std::shared_ptr<Wakeup> wakeup;
  };
  const auto on_read = [](int rc, const char*, int, const Stat*, const void* data) {
    const std::unique_ptr<Watching> watching(static_cast<Watching*>(const_cast<void*>(data)));
    if (rc != ZOK) watching->wakeup->watch_failed(rc);
  };
  const data_completion_t completion = on_read;
  auto watching = std::make_unique<Watching>(session, wakeup);
  const int rc = zoo_awget(session.handle(), path.c_str(), &Session::node_watcher,
                           Session::watch_context(watch_id), completion, watching.get());
  // Refused before it was queued: no completion will come. (A marshalling error may come
  // after the completion was queued; it owns the data then.)
  if (rc == ZOK || rc == ZMARSHALLINGERROR) static_cast<void>(watching.release());
  return rc;
}

Reply Requests::remove(Session& session, const std::string& path, int version,
                       SteadyClock::time_point caller) const {
  ++stats_.round_trips;
  return send<Reply>(session, reply_end(caller),
                     [&](zhandle_t* handle, const void* data) {
                       return zoo_adelete(handle, path.c_str(), version, &on_done, data);
                     })
      .reply();
}

void Requests::remove_ahead(Session& session, const std::string& path,
                            std::function<void(Reply)> on_reply) const {
  ++stats_.round_trips;
  const auto on_removed = [](int rc, const void* data) {
    answer<Reply>(data, [&](Reply& reply) { reply.rc = rc; });
  };
  const void_completion_t completion = on_removed;
  send_ahead(session, std::move(on_reply), [&](zhandle_t* handle, void* data) {
    return zoo_adelete(handle, path.c_str(), -1, completion, data);
  });
}

std::vector<DataReply> Requests::read_all(Session& session,
                                          const std::vector<std::string>& paths) const {
  if (paths.empty()) return {};
  ++stats_.round_trips;
  std::vector<Sent<DataReply>> sent;
  sent.reserve(paths.size());
  for (const std::string& path : paths)
    sent.push_back(send<DataReply>(session, reply_end(kNoCallerDeadline),
                                   [&](zhandle_t* handle, const void* data) {
                                     return zoo_aget(handle, path.c_str(), 0, &on_read, data);
                                   }));
  std::vector<DataReply> replies;
  replies.reserve(sent.size());
  for (const auto& request : sent) replies.push_back(request.reply());
  return replies;
}

std::vector<StatReply> Requests::exists_all(Session& session,
                                            const std::vector<std::string>& paths) const {
  if (paths.empty()) return {};
  // Each exists fills its slot; the last one to answer wakes the caller.
  struct Batch {
    std::mutex mutex;
    std::condition_variable done_cv;
    std::size_t remaining;
    std::vector<StatReply> replies;
  };
  auto batch = std::make_shared<Batch>();
  batch->remaining = paths.size();
  StatReply unanswered;
  unanswered.rc = status::kNoReply;
  batch->replies.assign(paths.size(), unanswered);
  struct Slot {
    Slot(Session& session, std::shared_ptr<Batch> batch, std::size_t index)
        : unanswered(session), batch(std::move(batch)), index(index) {}
    Session::Unanswered unanswered;
    std::shared_ptr<Batch> batch;
    std::size_t index;
  };
  const auto on_reply = [](int rc, const Stat* stat, const void* data) {
    std::unique_ptr<Slot> slot(static_cast<Slot*>(const_cast<void*>(data)));
    Batch& owner = *slot->batch;
    bool last = false;
    {
      std::lock_guard lock(owner.mutex);
      StatReply& reply = owner.replies[slot->index];
      reply.rc = rc;
      if (rc == ZOK && stat != nullptr) reply.stat = *stat;
      last = --owner.remaining == 0;
    }
    if (last) owner.done_cv.notify_all();
  };
  const stat_completion_t completion = on_reply;

  ++stats_.round_trips;
  const auto sent_at = SteadyClock::now();
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto slot = std::make_unique<Slot>(session, batch, i);
    const int rc = zoo_aexists(session.handle(), paths[i].c_str(), 0, completion, slot.get());
    if (rc == ZOK || rc == ZMARSHALLINGERROR) static_cast<void>(slot.release());
    if (rc != ZOK) {
      std::lock_guard lock(batch->mutex);
      batch->replies[i].rc = rc;
      --batch->remaining;
    }
  }
  std::unique_lock lock(batch->mutex);
  batch->done_cv.wait_for(lock, command_timeout_, [&] { return batch->remaining == 0; });
  std::vector<StatReply> replies = batch->replies;
  for (auto& reply : replies) reply.sent_at = sent_at;
  return replies;
}

}  // namespace distlock::detail::zookeeper
