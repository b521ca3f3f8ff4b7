// The one shape of every error message: "distlock: lock '<lock>' on <server>: <reason>".
#pragma once

#include <string>
#include <string_view>

namespace distlock::detail {

// `lock` may be empty, for failures that concern no lock (connecting, say).
std::string failure_message(std::string_view lock, std::string_view server,
                            std::string_view reason);

}  // namespace distlock::detail
