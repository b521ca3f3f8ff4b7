// SPDX-License-Identifier: Apache-2.0
// Reading the locks a PostgreSQL lock table keeps, for distlock::admin: the live rows
// (expires_at > clock_timestamp()) of the lock table and of its holds table
// (lock_statements.h), read by one statement, so that a lock's holds and waiters are seen in
// one snapshot and against one reading of the server's clock. An expired row is nobody's,
// though no statement on its name has deleted it yet: it is left out.
#pragma once

#include <libpq-fe.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/admin.h>

#include "backends/postgres/connection.h"
#include "backends/postgres/settings.h"

namespace distlock::detail::postgres {

// The columns of a hold's or a waiter's row, as the listing and the force-release return them.
// kind: 'exclusive' or 'fair' (the lock table's row; fair while live fair waiters queue for
// it), or the holds table's 'read', 'write', 'permit', 'writer' (a waiting writer's mark),
// 'queued' (a fair waiter's place). id: the acquisition id (the lock table's: the first of its
// holds, empty when a hold_at_least keeps it taken by nobody). holder: "<host> <pid> <ms>".
// count: the acquisitions holding it (reentry). left_ms: how long the server keeps it.
enum class RowColumn : int { kind, name, id, owner, fence, holder, count, left_ms };

class LockListing {
 public:
  // `settings` must outlive the listing.
  explicit LockListing(const PostgresSettings& settings);

  // The locks held or waited for whose names match `pattern` (a glob; empty: all), in no
  // order. Throws ServerError.
  std::vector<admin::LockState> list(Connection& connection, std::string_view pattern) const;
  // The lock of this name; nullopt when nobody holds or waits for it. Throws ServerError.
  std::optional<admin::LockState> read(Connection& connection, std::string_view name) const;

 private:
  const PostgresSettings& settings_;
  const Statement with_prefix_;
  const Statement named_;
};

// The hold of a row whose kind is a hold's (exclusive, fair, read, write, permit).
admin::Hold hold_of_row(const PGresult& rows, int row, const PostgresSettings& settings);

}  // namespace distlock::detail::postgres
