// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/force_release.h"

#include "backends/zookeeper/status.h"

namespace distlock::detail::zookeeper {

std::vector<admin::ReleasedHold> force_release(const LockListing& listing, const Requests& requests,
                                               Session& session, const std::string& server,
                                               const std::string& name, const std::string& path,
                                               const std::optional<std::string>& acquisition_id) {
  std::vector<admin::ReleasedHold> released;
  const auto state = listing.read(name, path);
  if (!state) return released;
  for (const auto& hold : state->holds) {
    if (acquisition_id && hold.holder.acquisition_id != *acquisition_id) continue;
    // Read again for its version: the node as it is now, not as the listing saw it.
    const auto node = requests.read_all(session, {hold.location}).front();
    if (node.rc == ZNONODE) continue;
    if (node.rc != ZOK)
      status::throw_failure(name, server, hold.location, node.rc, "reading " + hold.location);
    const auto removed = requests.remove(session, hold.location, node.stat.version);
    if (removed.rc == ZNONODE || removed.rc == ZBADVERSION) continue;
    if (removed.rc != ZOK)
      status::throw_failure(name, server, hold.location, removed.rc, "deleting " + hold.location);
    released.push_back(admin::ReleasedHold{name, hold_of_node(hold.kind, hold.location, node)});
  }
  return released;
}

}  // namespace distlock::detail::zookeeper
