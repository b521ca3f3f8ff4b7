// SPDX-License-Identifier: Apache-2.0
// The one shape of every error message and of the runtime's log lines:
// "distlock: lock '<lock>' on <server>: <reason>", without the parts that are empty.
#pragma once

#include <string>
#include <string_view>

namespace distlock::detail {

// `lock` may be empty, for failures that concern no lock (connecting, say); `server` too,
// for those that concern no server (a bad spec).
std::string failure_message(std::string_view lock, std::string_view server,
                            std::string_view reason);

}  // namespace distlock::detail
