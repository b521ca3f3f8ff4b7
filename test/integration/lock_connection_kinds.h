// SPDX-License-Identifier: Apache-2.0
// The two ways one Redis client's lock commands reach the server, for suites that run each case
// on both: the one connection every thread shares, or pooled connections (max_connections=1:
// the lock commands borrow the pool's one). A case's parameter is the URL's query for it.
#pragma once

#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace distlock::testing {

inline constexpr std::string_view kSharedLockConnection = "max_connections=4";
inline constexpr std::string_view kPooledLockConnections = "max_connections=1";

inline auto lock_connection_kinds() {
  return ::testing::Values(kSharedLockConnection, kPooledLockConnections);
}

// "Shared" or "Pooled", for the case's name.
inline std::string lock_connection_kind_name(
    const ::testing::TestParamInfo<std::string_view>& info) {
  return info.param == kPooledLockConnections ? "Pooled" : "Shared";
}

// `name`, made the kind's own: a lock that one kind's case leaves taken holds up no case of the
// other.
inline std::string for_lock_connection_kind(std::string_view name, std::string_view kind) {
  return std::string(name) + (kind == kPooledLockConnections ? "-pooled" : "-shared");
}

}  // namespace distlock::testing
