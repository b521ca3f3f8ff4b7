// SPDX-License-Identifier: Apache-2.0
// Reading the locks a ZooKeeper server keeps, for distlock::admin: a walk of the lock root
// (/distlock/<type>[/<key>], lock_nodes.h), each lock node's contenders ordered and judged as
// a contender judges them, and each node's data ("<host> <pid> <acquisition id>", written by
// distlock; a Curator client writes its IP address) and stat (fence: czxid; acquired at: ctime).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/admin.h>

#include "backends/zookeeper/requests.h"
#include "backends/zookeeper/session.h"

namespace distlock::detail::zookeeper {

class LockListing {
 public:
  // `server`: for messages. Failed requests throw BackendUnavailable naming the lock.
  LockListing(const Requests& requests, Session& session, std::string server);

  // The lock names under the lock root that match `pattern` (a glob; empty: all), with their
  // lock paths.
  std::vector<std::pair<std::string, std::string>> names(std::string_view pattern) const;
  // The lock at `path`, with every hold and waiter; nullopt when nobody holds or waits.
  std::optional<admin::LockState> read(const std::string& name, const std::string& path) const;

 private:
  // The children of `path`; none when it does not exist.
  std::vector<std::string> children(std::string_view lock, const std::string& path) const;
  std::vector<DataReply> read_nodes(std::string_view lock,
                                    const std::vector<std::string>& paths) const;

  const Requests& requests_;
  Session& session_;
  const std::string server_;
};

// A hold read from a node: what its data and stat say.
admin::Hold hold_of_node(admin::HoldKind kind, const std::string& path, const DataReply& node);

}  // namespace distlock::detail::zookeeper
