// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/deletion_watcher.h"

#include <chrono>
#include <cstdint>
#include <utility>

#include <distlock/error.h>

namespace distlock::detail::etcd {
namespace {

// How long the thread waits before opening a new stream after one failed.
constexpr auto kReopenDelay = std::chrono::milliseconds(200);
// The id of a watch the member would not create.
constexpr std::int64_t kRefusedWatch = -1;

}  // namespace

DeletionWatcher::Ticket::~Ticket() { watcher_.forget(id_); }

bool DeletionWatcher::Ticket::wait(SteadyClock::time_point until) const {
  std::unique_lock lock(watcher_.mutex_);
  return watcher_.woken_.wait_until(lock, until, [&] {
    const auto found = watcher_.watches_.find(id_);
    return found == watcher_.watches_.end() || found->second.woken;
  });
}

DeletionWatcher::DeletionWatcher(RpcClient& rpc)
    : rpc_(rpc), reader_([this] { read_streams(); }), writer_([this] { write_requests(); }) {}

DeletionWatcher::~DeletionWatcher() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    if (context_) context_->TryCancel();
  }
  stop_requested_.notify_all();
  outbox_filled_.notify_all();
  writer_.join();
  reader_.join();
}

std::unique_ptr<DeletionWatcher::Ticket> DeletionWatcher::watch(const WatchTarget& target,
                                                                std::int64_t from_revision,
                                                                std::function<void()> on_woken) {
  const std::lock_guard lock(mutex_);
  const std::int64_t id = next_id_++;
  Watch& watch = watches_[id];
  watch.target = target;
  watch.from_revision = from_revision;
  watch.on_woken = std::move(on_woken);
  if (stream_) send_create_locked(id, watch);
  return std::make_unique<Ticket>(*this, id);
}

void DeletionWatcher::forget(std::int64_t id) {
  const std::lock_guard lock(mutex_);
  if (watches_.erase(id) == 1 && stream_) send_cancel_locked(id);
}

void DeletionWatcher::send_create_locked(std::int64_t id, const Watch& watch) {
  etcdserverpb::WatchRequest request;
  auto* create = request.mutable_create_request();
  create->set_key(watch.target.key);
  if (!watch.target.range_end.empty()) create->set_range_end(watch.target.range_end);
  create->set_start_revision(watch.from_revision);
  create->add_filters(etcdserverpb::WatchCreateRequest::NOPUT);
  create->set_watch_id(id);
  outbox_.push_back(std::move(request));
  outbox_filled_.notify_one();
}

void DeletionWatcher::send_cancel_locked(std::int64_t id) {
  etcdserverpb::WatchRequest request;
  request.mutable_cancel_request()->set_watch_id(id);
  outbox_.push_back(std::move(request));
  outbox_filled_.notify_one();
}

void DeletionWatcher::wake_locked(Watch& watch) {
  if (watch.woken) return;
  watch.woken = true;
  if (watch.on_woken) watch.on_woken();
  woken_.notify_all();
}

void DeletionWatcher::write_requests() {
  std::unique_lock lock(mutex_);
  for (;;) {
    outbox_filled_.wait(lock, [this] { return stopping_ || (stream_ && !outbox_.empty()); });
    if (stopping_) return;
    Stream* stream = stream_.get();
    const etcdserverpb::WatchRequest request = std::move(outbox_.front());
    outbox_.pop_front();
    writing_ = true;
    lock.unlock();
    // Waits while the member's flow-control window is shut; the reader goes on reading.
    const bool written = stream->Write(request);
    lock.lock();
    writing_ = false;
    write_ended_.notify_all();
    // The stream broke: the reader sees it too, and the next stream asks for every watch.
    if (!written) outbox_.clear();
  }
}

void DeletionWatcher::read_streams() {
  for (;;) {
    grpc::ClientContext* context = nullptr;
    {
      const std::lock_guard lock(mutex_);
      if (stopping_) return;
      context_ = rpc_.stream_context();
      context = context_.get();
    }
    // Opened without the lock: opening waits for the channel (a member still connecting, one
    // that drops SYNs), and neither watch() nor the destructor, which cancels the context, may
    // wait behind it.
    auto opened = rpc_.watch_stub().Watch(context);
    Stream* stream = nullptr;
    {
      const std::lock_guard lock(mutex_);
      stream_ = std::move(opened);
      stream = stream_.get();
      for (const auto& [id, watch] : watches_)
        if (!watch.woken) send_create_locked(id, watch);
    }
    etcdserverpb::WatchResponse response;
    bool refused = false;
    while (stream->Read(&response)) {
      // etcd judges each watch by the token the stream was opened with: once that token has
      // expired (a simple token idle past --auth-token-ttl), it refuses every new watch on the
      // stream, naming none of ours. The stream is opened again with a new token.
      if (response.created() && response.canceled() && response.watch_id() == kRefusedWatch) {
        refused = true;
        context->TryCancel();
        continue;
      }
      const std::lock_guard lock(mutex_);
      const auto found = watches_.find(response.watch_id());
      if (found == watches_.end()) continue;
      bool deleted = false;
      for (const auto& event : response.events())
        deleted = deleted || event.type() == mvccpb::Event::DELETE;
      if (deleted || response.canceled()) wake_locked(found->second);
    }
    std::unique_lock lock(mutex_);
    // A write still waiting for the member ends, and the stream is finished after it.
    context->TryCancel();
    write_ended_.wait(lock, [this] { return !writing_; });
    stream_->Finish();
    stream_.reset();
    context_.reset();
    outbox_.clear();
    // Events may have been missed while no stream was open: every waiter looks again.
    for (auto& [id, watch] : watches_) wake_locked(watch);
    if (stopping_) return;
    stop_requested_.wait_for(lock, kReopenDelay, [this] { return stopping_; });
    if (stopping_ || !refused) continue;
    lock.unlock();
    try {
      rpc_.renew_token();
    } catch (const Error&) {
      // The next stream is opened with the token there is; a refusal on it comes back here.
    }
  }
}

}  // namespace distlock::detail::etcd
