// SPDX-License-Identifier: Apache-2.0
// Reading the locks an etcd cluster keeps, for distlock::admin: one range read of the keys
// below the lock root (or below one lock's prefix), each key placed by key_layout.h's
// parse_lock_key, each lock's contenders ordered and judged as its recipe judges them, and
// each key's value ("<host> <pid> <acquisition id>", written by distlock; etcdctl and Go's
// recipes write none) and lease (its time left).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/admin.h>

#include "backends/etcd/rpc_client.h"

namespace distlock::detail::etcd {

class LockListing {
 public:
  // `server`: for messages. Failed calls throw BackendUnavailable naming the lock.
  LockListing(RpcClient& rpc, std::string server);

  // Every lock whose name matches `pattern` (a glob; empty: all), by name.
  std::vector<admin::LockState> list(std::string_view pattern);
  // The lock of this name, with every hold and waiter; nullopt when nobody holds or waits.
  std::optional<admin::LockState> read(const std::string& name);

 private:
  // The locks among the keys of [key, range_end), of names that `wanted` accepts.
  template <class Wanted>
  std::vector<admin::LockState> locks_in(std::string_view lock, const std::string& key,
                                         const std::string& range_end, const Wanted& wanted);
  // The seconds a hold's lease has left (none when it went meanwhile).
  std::optional<Millis> time_left(std::string_view lock, std::int64_t lease);

  RpcClient& rpc_;
  const std::string server_;
};

}  // namespace distlock::detail::etcd
