// SPDX-License-Identifier: Apache-2.0
// Reading the locks one Redis server keeps, for distlock::admin: the lock names found by SCAN
// (never KEYS, which would stop the server for the whole key space), then each name's keys
// (redis_keys.h) read in one MULTI, so that a lock's holds and waiters are seen at one
// instant of the server's clock.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <distlock/admin.h>

#include "backends/redis/transport/connection.h"

namespace distlock::detail::redis {

// The names of the locks with any key on this server whose names match `pattern` (a glob;
// empty: all). In no order, each once.
std::vector<std::string> scan_lock_names(Connection& connection, std::string_view pattern);

// The state of each named lock; names nobody holds or waits for are left out.
std::vector<admin::LockState> read_locks(Connection& connection,
                                         const std::vector<std::string>& names);

// Where a hold or waiter that is a member of a key lives, as listings show it: "<key> <member>".
std::string member_location(std::string_view key, std::string_view member);

// The lock name in one of its keys ("distlock:{order:1}:rw" -> "order:1"); empty for a key
// that is not a lock's.
std::string lock_name_of_key(std::string_view key);

}  // namespace distlock::detail::redis
