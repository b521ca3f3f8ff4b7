// SPDX-License-Identifier: Apache-2.0
// An operator's force-release on one Redis server (scripts/force_release.lua): atomic, so
// that with an acquisition id only that acquisition's hold goes, never one granted meanwhile.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/admin.h>

#include "backends/redis/transport/connection.h"

namespace distlock::detail::redis {

// `publish`: PUBLISH, or SPUBLISH on a cluster node. Throws ServerError.
std::vector<admin::ReleasedHold> force_release(Connection& connection, const std::string& name,
                                               const std::optional<std::string>& acquisition_id,
                                               std::string_view publish);

}  // namespace distlock::detail::redis
