// SPDX-License-Identifier: Apache-2.0
// ZooKeeper result codes as the backend reads them, and the messages it throws.
#pragma once

#include "util/failure_message.h"

#include <string>
#include <string_view>

#include <distlock/error.h>

namespace distlock::detail::zookeeper::status {

// Not a ZooKeeper code: the reply did not come within the command timeout.
inline constexpr int kNoReply = -9000;

// What went wrong, as a reason reads: "connection loss", "no reply within 3000 ms".
std::string reason(int rc);

// The request may or may not have been applied; ask again once connected.
bool connection_trouble(int rc);
// The session (or its handle) is gone: what it held is gone with it.
bool session_gone(int rc);

BackendUnavailable unavailable(std::string_view lock, std::string_view server,
                               std::string_view reason);

// What a failed request on the nodes under `path` throws: ConfigError when ZooKeeper refused
// access (the nodes belong to another user), else BackendUnavailable.
[[noreturn]] void throw_failure(std::string_view lock, std::string_view server,
                                std::string_view path, int rc, const std::string& doing);

}  // namespace distlock::detail::zookeeper::status
