// The locks as JSON for scripts (--json). Times are ISO 8601 UTC strings and milliseconds since
// the epoch; durations milliseconds; what the server does not know is null.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include <distlock/admin.h>

namespace distlock::cli {

nlohmann::json to_json(const admin::Holder& holder);
nlohmann::json to_json(const admin::Hold& hold);
nlohmann::json to_json(const admin::Waiter& waiter);
nlohmann::json to_json(const admin::LockState& lock);
nlohmann::json to_json(const admin::ReleasedHold& released);

}  // namespace distlock::cli
