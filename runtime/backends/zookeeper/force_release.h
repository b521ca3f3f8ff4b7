// SPDX-License-Identifier: Apache-2.0
// An operator's force-release on ZooKeeper: the holders' nodes of one lock deleted, each with
// the version it was read at, so that a node is deleted only as it was seen. A contender's
// node is its acquisition's alone (a sequence number and a uuid in its name): deleting it can
// never take a hold granted meanwhile to another acquisition. Waiters' nodes stay; the fence
// (czxid) only grows, so the next holder's is above.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/admin.h>

#include "backends/zookeeper/lock_listing.h"

namespace distlock::detail::zookeeper {

// Removes the holds of the lock at `path` (with `acquisition_id`, only that acquisition's).
std::vector<admin::ReleasedHold> force_release(const LockListing& listing, const Requests& requests,
                                               Session& session, const std::string& server,
                                               const std::string& name, const std::string& path,
                                               const std::optional<std::string>& acquisition_id);

}  // namespace distlock::detail::zookeeper
