// SPDX-License-Identifier: Apache-2.0
// Requests to the server through a session, each round trip counted in stats.round_trips.
// They go out through the C client's asynchronous calls; the caller waits on its own condition
// variable, up to the command timeout, cut at the deadline of the caller on whose behalf it is
// made (`caller`: core/step_deadline.h). A create is awaited until the client answers, which it
// always does, at worst with a connection loss, because only its answer tells whether the node
// exists; unless the caller's wait ends first. The server answers a session's requests in the order
// they were sent, so requests sent back to back cost one round trip and each sees what the ones
// before it did.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <zookeeper/zookeeper.h>

#include "backends/backend.h"
#include "backends/zookeeper/session.h"
#include "core/stats.h"
#include "core/step_deadline.h"

namespace distlock::detail::zookeeper {

struct Reply {
  int rc = ZOK;  // a ZooKeeper code, or status::kNoReply
  // When the request went out: if it succeeded, the server heard from the session after this.
  SteadyClock::time_point sent_at;
};

struct CreateReply : Reply {
  std::string path;  // the node created (with its sequence number), chroot removed
  Stat stat{};
};

struct ChildrenReply : Reply {
  std::vector<std::string> children;
};

struct StatReply : Reply {
  Stat stat{};
};

struct DataReply : Reply {
  std::string data;  // empty for a node without data
  Stat stat{};
};

class Requests {
 public:
  Requests(StatsCounters& stats, Millis command_timeout);

  // `data`: the node's content; empty: none (null data).
  CreateReply create(Session& session, const std::string& path, int mode, const ACL_vector& acl,
                     std::string_view data = {},
                     SteadyClock::time_point caller = kNoCallerDeadline) const;
  // With a `watch_id` (0: none), a listing that succeeds leaves a watch on the children that
  // this id of the session receives, as `watch` does for a node.
  ChildrenReply children(Session& session, const std::string& path, std::uint64_t watch_id = 0,
                         SteadyClock::time_point caller = kNoCallerDeadline) const;
  // A create and, right behind it, the listing of `parent`, which then includes the node
  // created: both in one round trip.
  std::pair<CreateReply, ChildrenReply> create_and_list(
      Session& session, const std::string& path, int mode, const ACL_vector& acl,
      std::string_view data, const std::string& parent, std::uint64_t watch_id = 0,
      SteadyClock::time_point caller = kNoCallerDeadline) const;
  // Sends the listing and returns at once; `on_reply` gets the reply on the completion thread
  // (a request the client would not send: before this returns). It never blocks, so the
  // completion thread may call it, with the session whose callback it runs.
  void list_ahead(Session& session, const std::string& path,
                  std::function<void(ChildrenReply)> on_reply) const;
  StatReply exists(Session& session, const std::string& path,
                   SteadyClock::time_point caller = kNoCallerDeadline) const;
  // Reads the node (getData) and leaves a watch on it that `watch_id` of the session
  // receives. Unlike exists, a node that is gone leaves no watch behind. Does not wait: the
  // caller waits for the watch itself, and a refusal (the node gone already, say) reaches
  // `wakeup` as watch_failed. Returns the code of a request the client would not send.
  int watch(Session& session, const std::string& path, std::uint64_t watch_id,
            const std::shared_ptr<Wakeup>& wakeup) const;
  // Deletes the node; with a `version` (-1: any), only if the node is still at that version.
  Reply remove(Session& session, const std::string& path, int version = -1,
               SteadyClock::time_point caller = kNoCallerDeadline) const;
  // Sends the deletion and returns at once, as list_ahead sends a listing: `on_reply` gets the
  // reply on the completion thread. `on_reply` must not own the session: the session's last
  // owner closes it, which the completion thread cannot do.
  void remove_ahead(Session& session, const std::string& path,
                    std::function<void(Reply)> on_reply) const;
  // Each node's data and stat (getData, no watch), pipelined: one round trip.
  std::vector<DataReply> read_all(Session& session, const std::vector<std::string>& paths) const;
  // exists for each path, pipelined: one round trip.
  std::vector<StatReply> exists_all(Session& session, const std::vector<std::string>& paths) const;

 private:
  // When a reply other than a create's stops being awaited: after command_timeout, or by the
  // caller's deadline (step_deadline).
  SteadyClock::time_point reply_end(SteadyClock::time_point caller) const;

  StatsCounters& stats_;
  const Millis command_timeout_;
};

}  // namespace distlock::detail::zookeeper
