// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/requests.h"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "backends/zookeeper/status.h"

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

// The completion's `data`: a reference on the heap, which the completion releases.
template <class R>
const void* hand_over(const PendingRef<R>& pending) {
  return new PendingRef<R>(pending);
}

template <class R, class Fill>
void complete(const void* data, Fill&& fill) {
  std::unique_ptr<PendingRef<R>> owner(static_cast<PendingRef<R>*>(const_cast<void*>(data)));
  Pending<R>& pending = **owner;
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
  Sent(PendingRef<R> pending, std::optional<Millis> timeout, SteadyClock::time_point sent_at)
      : pending_(std::move(pending)), timeout_(timeout), sent_at_(sent_at) {}

  // Waits for the reply up to the timeout it was sent with (none: until the client answers);
  // status::kNoReply if it does not come by then.
  R reply() const {
    R reply;
    {
      std::unique_lock lock(pending_->mutex);
      const auto arrived = [&] { return pending_->done; };
      if (timeout_)
        pending_->done_cv.wait_for(lock, *timeout_, arrived);
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
  std::optional<Millis> timeout_;
  SteadyClock::time_point sent_at_;
};

// Sends with `submit(handle, data)` (a zoo_a* call); the reply is awaited through the result.
template <class R, class Submit>
Sent<R> send(Session& session, std::optional<Millis> timeout, Submit&& submit) {
  auto pending = std::make_shared<Pending<R>>();
  const void* data = hand_over(pending);
  const auto sent_at = SteadyClock::now();
  const int rc = submit(session.handle(), data);
  if (rc != ZOK) {
    // Refused before it was queued: no completion will come. (A marshalling error may come
    // after the completion was queued; its reference is left to it.)
    if (rc != ZMARSHALLINGERROR) delete static_cast<const PendingRef<R>*>(data);
    std::lock_guard lock(pending->mutex);
    pending->reply.rc = rc;
    pending->done = true;
  }
  return Sent<R>(std::move(pending), timeout, sent_at);
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

}  // namespace

Requests::Requests(StatsCounters& stats, Millis command_timeout)
    : stats_(stats), command_timeout_(command_timeout) {}

CreateReply Requests::create(Session& session, const std::string& path, int mode,
                             const ACL_vector& acl, std::string_view data) const {
  ++stats_.round_trips;
  return send<CreateReply>(session, std::nullopt, creation(path, mode, acl, data)).reply();
}

ChildrenReply Requests::children(Session& session, const std::string& path,
                                 std::uint64_t watch_id) const {
  ++stats_.round_trips;
  return send<ChildrenReply>(session, command_timeout_, listing(path, watch_id)).reply();
}

std::pair<CreateReply, ChildrenReply> Requests::create_and_list(
    Session& session, const std::string& path, int mode, const ACL_vector& acl,
    std::string_view data, const std::string& parent, std::uint64_t watch_id) const {
  ++stats_.round_trips;
  const auto created = send<CreateReply>(session, std::nullopt, creation(path, mode, acl, data));
  const auto listed = send<ChildrenReply>(session, command_timeout_, listing(parent, watch_id));
  // The listing is answered after the create: waiting for it first, the caller wakes once.
  auto children = listed.reply();
  return {created.reply(), std::move(children)};
}

void Requests::list_ahead(Session& session, const std::string& path,
                          std::function<void(ChildrenReply)> on_reply) const {
  ++stats_.round_trips;
  struct Ahead {
    std::function<void(ChildrenReply)> on_reply;
    SteadyClock::time_point sent_at;
  };
  const auto on_listed = [](int rc, const String_vector* names, const void* data) {
    const std::unique_ptr<Ahead> ahead(static_cast<Ahead*>(const_cast<void*>(data)));
    ChildrenReply reply;
    fill_children(reply, rc, names);
    reply.sent_at = ahead->sent_at;
    ahead->on_reply(std::move(reply));
  };
  const strings_completion_t completion = on_listed;
  auto* ahead = new Ahead{std::move(on_reply), SteadyClock::now()};
  const int rc = zoo_aget_children(session.handle(), path.c_str(), 0, completion, ahead);
  // Sent: the completion's now. (So is a marshalling error's, which may come after the
  // completion was queued.)
  if (rc == ZOK || rc == ZMARSHALLINGERROR) return;
  const std::unique_ptr<Ahead> refused(ahead);
  ChildrenReply reply;
  reply.rc = rc;
  reply.sent_at = refused->sent_at;
  refused->on_reply(std::move(reply));
}

StatReply Requests::exists(Session& session, const std::string& path) const {
  ++stats_.round_trips;
  return send<StatReply>(session, command_timeout_,
                         [&](zhandle_t* handle, const void* data) {
                           return zoo_aexists(handle, path.c_str(), 0, &on_stat, data);
                         })
      .reply();
}

int Requests::watch(Session& session, const std::string& path, std::uint64_t watch_id,
                    const std::shared_ptr<Wakeup>& wakeup) const {
  ++stats_.round_trips;
  const auto on_read = [](int rc, const char*, int, const Stat*, const void* data) {
    const std::unique_ptr<std::shared_ptr<Wakeup>> waiting(
        static_cast<std::shared_ptr<Wakeup>*>(const_cast<void*>(data)));
    if (rc != ZOK) (*waiting)->watch_failed(rc);
  };
  const data_completion_t completion = on_read;
  auto* data = new std::shared_ptr<Wakeup>(wakeup);
  const int rc = zoo_awget(session.handle(), path.c_str(), &Session::node_watcher,
                           Session::watch_context(watch_id), completion, data);
  // Refused before it was queued: no completion will come. (A marshalling error may come
  // after the completion was queued; its reference is left to it.)
  if (rc != ZOK && rc != ZMARSHALLINGERROR) delete data;
  return rc;
}

Reply Requests::remove(Session& session, const std::string& path, int version) const {
  ++stats_.round_trips;
  return send<Reply>(session, command_timeout_,
                     [&](zhandle_t* handle, const void* data) {
                       return zoo_adelete(handle, path.c_str(), version, &on_done, data);
                     })
      .reply();
}

void Requests::remove_ahead(Session& session, const std::string& path,
                            std::function<void(Reply)> on_reply) const {
  ++stats_.round_trips;
  struct Ahead {
    std::function<void(Reply)> on_reply;
    SteadyClock::time_point sent_at;
  };
  const auto on_removed = [](int rc, const void* data) {
    const std::unique_ptr<Ahead> ahead(static_cast<Ahead*>(const_cast<void*>(data)));
    Reply reply;
    reply.rc = rc;
    reply.sent_at = ahead->sent_at;
    ahead->on_reply(reply);
  };
  const void_completion_t completion = on_removed;
  auto* ahead = new Ahead{std::move(on_reply), SteadyClock::now()};
  const int rc = zoo_adelete(session.handle(), path.c_str(), -1, completion, ahead);
  if (rc == ZOK || rc == ZMARSHALLINGERROR) return;
  const std::unique_ptr<Ahead> refused(ahead);
  Reply reply;
  reply.rc = rc;
  reply.sent_at = refused->sent_at;
  refused->on_reply(reply);
}

std::vector<DataReply> Requests::read_all(Session& session,
                                          const std::vector<std::string>& paths) const {
  if (paths.empty()) return {};
  ++stats_.round_trips;
  std::vector<Sent<DataReply>> sent;
  sent.reserve(paths.size());
  for (const std::string& path : paths)
    sent.push_back(
        send<DataReply>(session, command_timeout_, [&](zhandle_t* handle, const void* data) {
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
    auto* slot = new Slot{batch, i};
    const int rc = zoo_aexists(session.handle(), paths[i].c_str(), 0, completion, slot);
    if (rc != ZOK) {
      if (rc != ZMARSHALLINGERROR) delete slot;
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
