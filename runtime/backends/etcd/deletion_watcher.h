// SPDX-License-Identifier: Apache-2.0
// Tells waiters when a key is deleted (or any key of a range): one etcd Watch stream per
// backend, one thread that reads it and one that writes the waiters' requests to it. Nothing
// waits for a write: a member that stops reading (its flow-control window shut) holds up only
// the writer, never a waiter's wait, its withdrawal, or the reading of what the member sends. A
// waiter watches the contender just ahead of it (or a semaphore's permit keys) from the revision of
// the listing it found them in, so a deletion in between is replayed, not missed.
//
// A waiter is woken when its key is deleted, when the server cancels its watch (a compacted
// revision), and when the stream breaks (every waiter: a new stream may have missed events).
// Each wake-up only tells the waiter to look again; it never grants anything by itself.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "backends/etcd/rpc_client.h"
#include "util/steady_clock.h"

namespace distlock::detail::etcd {

// What a waiter waits for the deletion of: one key (no range end), or any key of the range
// [key, range_end).
struct WatchTarget {
  std::string key;
  std::string range_end;
};

class DeletionWatcher {
  struct Watch;

 public:
  // Interest in a deletion, for as long as it lives.
  class Ticket {
   public:
    Ticket(DeletionWatcher& watcher, std::int64_t id) : watcher_(watcher), id_(id) {}
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket();

    // Waits until woken or `until`; true when woken (at once if woken already).
    bool wait(SteadyClock::time_point until) const;

   private:
    DeletionWatcher& watcher_;
    std::int64_t id_;
  };

  explicit DeletionWatcher(RpcClient& rpc);
  DeletionWatcher(const DeletionWatcher&) = delete;
  DeletionWatcher& operator=(const DeletionWatcher&) = delete;
  // Cancels the stream and joins the threads.
  ~DeletionWatcher();

  // Watches `target` from `from_revision` on; the request goes out on the writer's thread.
  // `on_woken`, if given, is called once, from the watcher's thread or the caller's, under the
  // watcher's mutex: it must only post the waiter's next step.
  std::unique_ptr<Ticket> watch(const WatchTarget& target, std::int64_t from_revision,
                                std::function<void()> on_woken = {});

 private:
  struct Watch {
    WatchTarget target;
    std::int64_t from_revision = 0;
    bool woken = false;
    std::function<void()> on_woken;
  };
  using Stream = grpc::ClientReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>;

  void read_streams();
  void write_requests();
  // Under mutex_: queues a request for the open stream's writer.
  void send_create_locked(std::int64_t id, const Watch& watch);
  void send_cancel_locked(std::int64_t id);
  void wake_locked(Watch& watch);
  void forget(std::int64_t id);

  RpcClient& rpc_;
  mutable std::mutex mutex_;
  mutable std::condition_variable woken_;
  std::map<std::int64_t, Watch> watches_;  // under mutex_
  std::int64_t next_id_ = 1;               // under mutex_
  // The open stream and its context, under mutex_; null between streams.
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<Stream> stream_;
  // The requests the writer has yet to write on the open stream, under mutex_; a new stream
  // starts with a create for each watch still waiting.
  std::deque<etcdserverpb::WatchRequest> outbox_;
  std::condition_variable outbox_filled_;
  // Whether the writer is writing on stream_ (without the mutex), under mutex_: the stream is
  // finished only once it is not.
  bool writing_ = false;
  std::condition_variable write_ended_;
  bool stopping_ = false;  // under mutex_
  std::condition_variable stop_requested_;
  std::thread reader_;
  std::thread writer_;
};

}  // namespace distlock::detail::etcd
