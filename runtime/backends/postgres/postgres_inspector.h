// SPDX-License-Identifier: Apache-2.0
// distlock::admin on PostgreSQL: one connection of its own, the lock table and its holds table
// read by LockListing, holds deleted by force_release. It never creates the tables: a lock
// table missing from the database is an operator's wrong URL (another database, another
// lock_table) more often than a database nobody has locked in yet, and an empty listing would
// hide it.
#pragma once

#include <memory>
#include <string_view>

#include <distlock/client.h>

#include "admin/lock_inspector.h"

namespace distlock::detail::postgres {

// Connects within the URL's connect_timeout. Throws ConfigError for a URL it cannot use (as
// Client::connect does: postgres_settings), BackendUnavailable naming the server when it cannot
// be reached or refuses the credentials.
std::unique_ptr<LockInspector> make_inspector(std::string_view url, const Options& options);

}  // namespace distlock::detail::postgres
