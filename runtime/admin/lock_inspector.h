// SPDX-License-Identifier: Apache-2.0
// What a backend implements for distlock::admin::LockAdmin: reading the locks a server keeps,
// force-releasing them, and what the servers say of themselves. One per protocol
// (backends/redis/admin/redis_inspector, backends/zookeeper/zookeeper_inspector,
// backends/postgres/postgres_inspector); it knows nothing of the lock path's clients.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/admin.h>

namespace distlock::detail {

class LockInspector {
 public:
  virtual ~LockInspector() = default;

  // Every lock held or waited for whose name matches the glob `pattern`; in any order.
  virtual std::vector<admin::LockState> list(std::string_view pattern) = 0;
  // The lock of exactly this name; nullopt when nobody holds or waits for it.
  virtual std::optional<admin::LockState> show(std::string_view name) = 0;
  // As LockAdmin::force_release.
  virtual std::vector<admin::ReleasedHold> force_release(
      std::string_view name, const std::optional<std::string>& acquisition_id) = 0;
  // As LockAdmin::servers.
  virtual std::vector<admin::ServerFacts> servers() = 0;
  virtual const std::string& server() const = 0;
};

// Whether a lock name matches a shell glob (empty: everything).
bool name_matches(std::string_view pattern, std::string_view name);

}  // namespace distlock::detail
