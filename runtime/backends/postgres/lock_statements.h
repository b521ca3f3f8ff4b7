// SPDX-License-Identifier: Apache-2.0
// The SQL of the PostgreSQL backend: the lock table, and the statements that acquire, release
// and renew, each a single statement (one round trip, one transaction). A lock is one row of
// the table, keyed by its name, as a lock is one hash on Redis: the owner, the fence, one entry
// in `holds` per acquisition holding it (reentry adds one), who holds it for people, and when it
// expires by the server's clock (clock_timestamp()). A row whose expiry has passed is free to
// take over; nothing needs to delete it. Fences come from a sequence, drawn while the
// acquisition holds its turn at the name, so they increase in the order of the grants, across
// restarts too.
#pragma once

#include <string>

#include "backends/postgres/connection.h"
#include "backends/postgres/settings.h"

namespace distlock::detail::postgres {

struct LockStatements {
  // $1 name, $2 owner, $3 ttl in ms, $4 acquisition id, $5 holder (for people), $6 reentry
  // ('t': the owner holds a live lease on the lock). One row: the fence and a null when the
  // owner holds the lock now; a null and the ms until the holder's lease runs out when
  // another holds it; no row when it was taken by another just as this statement began.
  Statement acquire;
  // $1 name, $2 acquisition id, $3 ms to keep the lock taken by nobody (0: free it now). One
  // row: 1 when the hold was removed, 0 when the server did not have it. Freeing or keeping
  // the lock notifies the table's channel.
  Statement release;
  // $1 names, $2 acquisition ids, $3 ttls in ms (arrays, one entry per lease). The ids of the
  // leases whose holds were found and extended; the others are gone.
  Statement renew;
};

LockStatements lock_statements(const PostgresSettings& settings);

// The table and the fence sequence, as `lock_statements` expects them, in one transaction: what
// the backend runs when the table is missing, and what the guide gives users without the right
// to create it.
std::string lock_table_ddl(const PostgresSettings& settings);

}  // namespace distlock::detail::postgres
