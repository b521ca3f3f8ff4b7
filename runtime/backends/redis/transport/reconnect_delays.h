// SPDX-License-Identifier: Apache-2.0
// How long the Redis backends' background threads (the release listener, the Sentinel
// watcher) wait before connecting again after a failure: doubling from the first delay to the
// longest, back to the first once connected.
#pragma once

#include <chrono>

namespace distlock::detail::redis {

inline constexpr std::chrono::milliseconds kFirstReconnectDelay{50};
inline constexpr std::chrono::milliseconds kLongestReconnectDelay{2000};

}  // namespace distlock::detail::redis
