// SPDX-License-Identifier: Apache-2.0
// The SQL of the PostgreSQL backend: the lock table, and the statements that acquire, release
// and renew, each a single statement (one round trip, one transaction). A lock is one row of
// the table, keyed by its name, as a lock is one hash on Redis: the owner, the fence, one entry
// in `holds` per acquisition holding it (reentry adds one), who holds it for people, and when it
// expires by the server's clock (clock_timestamp()), and whether someone waits for it (only
// then does its release notify). A row whose expiry has passed is free to take over; nothing
// needs to delete it. Fences come from a sequence, drawn while the acquisition holds its turn
// at the name, so they increase in the order of the grants, across restarts too.
//
// The common cycle, a lock nobody else wants, is two short statements that a longer one backs
// up: `acquire_absent` inserts the row the name lacks, `release_sole` deletes it; when either
// finds the row otherwise, `acquire` or `release` decides, in a second round trip.
//
// The other kinds keep one row per acquisition in a second table, the holds table, keyed by the
// name and the acquisition id: a reader's, a writer's or a permit's hold, a waiting writer's
// mark, or a fair waiter's place in the queue of the exclusive lock (whose fair grants are the
// exclusive lock's row). Their statements read several rows of a name, so each runs after the
// name's turn in the same round trip (Connection::run_after): a statement reads the rows as
// they were when it started, and only a statement that starts once it has the turn sees what
// the one before it committed.
#pragma once

#include <string>
#include <string_view>

#include "backends/postgres/connection.h"
#include "backends/postgres/settings.h"

namespace distlock::detail::postgres {

struct LockStatements {
  // $1 name, $2 owner, $3 ttl in ms, $4 acquisition id, $5 holder, $6 others_wait ('t':
  // waiters of this client wait for the lock, so the grant is marked as waited for): takes
  // the lock when the name has no row. One row, the fence, when it did; no row when the name has
  // one: then `acquire` decides.
  Statement acquire_absent;
  // $1..$6 as acquire_absent, $7 reentry ('t': the owner holds a live lease on the lock). One row:
  // the fence and a null when the owner holds the lock now; a null and the ms until the holder's
  // lease runs out when another holds it (and the row is marked as waited for); no row when it was
  // taken by another just as this statement began.
  Statement acquire;
  // The same for a fair lock, after the turn: the first live place in the queue takes the free
  // lock; another keeps its place (or joins at the back) for one more ttl, and gets the ms
  // until the holder's lease, or the place ahead of it, runs out.
  Statement acquire_fair;
  // After the turn. $1..$5 as acquire, $6 reentry, and $7 holds_write: a read hold.
  Statement acquire_read;
  // After the turn. $1..$5 as acquire, $6 reentry: a write hold; not granted, a mark that holds
  // new readers back for one ttl.
  Statement acquire_write;
  // After the turn. $1..$5 as acquire, $6 the number of permits.
  Statement acquire_permit;
  // $1 name, $2 acquisition id: frees the lock when the acquisition is its only hold, telling
  // its waiters if it has any. One row when it did, no row otherwise: then `release` decides.
  Statement release_sole;
  // $1 name, $2 acquisition id, $3 ms to keep the lock taken by nobody (0: free it now). One
  // row: 1 when the hold was removed, 0 when the server did not have it. Freeing or keeping
  // the lock notifies the table's channel when the lock is waited for.
  Statement release;
  // The same for a fair lock, after the turn: the notification names the next waiter in line.
  Statement release_fair;
  // After the turn. $1..$3 as release: a read, write or permit hold.
  Statement release_shared;
  // After the turn. $1 name, $2 acquisition id: a waiter that leaves without the lock takes its
  // fair place or writer's mark back, and tells whom that lets in.
  Statement withdraw;
  // $1 names, $2 acquisition ids, $3 ttls in ms (arrays, one entry per lease). The ids of the
  // leases whose holds were found and extended; the others are gone.
  Statement renew;
  // $1 name: the name's turn (a transaction-level advisory lock).
  Statement turn;
};

LockStatements lock_statements(const PostgresSettings& settings);

// SQL text written with {table}, {holds}, {fence} and {channel} in place of the lock table, the
// holds table, the fence sequence and the release channel, with the settings' names in their
// place: the lock statements', and the admin API's (lock_listing.h, force_release.h). The
// tables and the sequence are written as quoted identifiers, so that a reserved word (user,
// order) names them as any other name does; {table_key} is the lock table's name as text, the
// key of its advisory locks, which every client of the table must hash alike.
std::string with_names(std::string_view text, const PostgresSettings& settings);
// `name` (a plain name, or schema.name) as a quoted identifier: "schema"."name".
std::string quoted_identifier(std::string_view name);

// The tables and the fence sequence, as `lock_statements` expects them, in one transaction: what
// the backend runs when the table is missing, and what the guide gives users without the right
// to create it.
std::string lock_table_ddl(const PostgresSettings& settings);

}  // namespace distlock::detail::postgres
