// SPDX-License-Identifier: Apache-2.0
// An operator's force-release on PostgreSQL: one statement, run after the name's turn (as the
// lock kinds' statements are: lock_statements.h), that deletes the live holds of one lock name,
// or with an acquisition id only the rows that acquisition holds, and notifies the waiters as
// a release does, when it commits. With an id it takes only what that acquisition holds when
// the statement runs: a hold granted meanwhile to another acquisition stays. Waiters' rows
// (fair places, waiting writers' marks) stay, and the fence sequence is never touched, so the
// next holder's fence is above every earlier one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <distlock/admin.h>

#include "backends/postgres/connection.h"
#include "backends/postgres/settings.h"

namespace distlock::detail::postgres {

// Removes the holds of the lock `name`: the lock table's row (with an id among its holds: the
// whole row, every reentry of its owner, as on Redis) and the holds table's read, write and
// permit rows. Returns what was removed. Throws ServerError.
std::vector<admin::ReleasedHold> force_release(Connection& connection,
                                               const PostgresSettings& settings,
                                               const std::string& name,
                                               const std::optional<std::string>& acquisition_id);

}  // namespace distlock::detail::postgres
