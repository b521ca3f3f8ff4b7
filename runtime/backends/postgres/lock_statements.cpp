// SPDX-License-Identifier: Apache-2.0
#include "backends/postgres/lock_statements.h"

#include <string_view>

namespace distlock::detail::postgres {
namespace {

// The holder of a live lock is this owner, and this acquisition holds it already (a retry
// after a lost reply) or the owner re-enters it: the lock stays as it is, with one more hold.
// Any other row this owner has is an orphan of an acquisition whose reply was lost, and is
// taken over anew, as an expired one is. `clock` is the statement's one reading of the server's
// clock: each column's choice must be made at the same instant, or a lease that runs out
// between two of them would leave a row with the old fence and the new holder.
constexpr std::string_view kContinuing =
    "l.owner = $2 AND l.expires_at > (SELECT now FROM clock) AND ($4 = ANY (l.holds) OR "
    "$7::boolean)";

// When the name has no row, which is the common case (a release deletes it), the acquisition
// inserts it after the name's turn, and that is all: nothing to decide and nobody to tell.
// Otherwise nothing happens and no row comes back, and kAcquire decides. $1..$6 as kAcquire.
constexpr std::string_view kAcquireAbsent = R"(
WITH turn AS (SELECT pg_advisory_xact_lock(hashtext('{table_key}'), hashtext($1)))
INSERT INTO {table} (name, owner, fence, holds, holder, expires_at, waited)
SELECT $1, $2, nextval('{fence}'), ARRAY[$4::text], $5,
       clock_timestamp() + $3::bigint * interval '1 millisecond', $6::boolean FROM turn
ON CONFLICT (name) DO NOTHING
RETURNING fence)";

// The fence is drawn only once the acquisition has its turn at the lock's name (an advisory
// lock held to the end of the statement's transaction): drawn before, a fence could lose the
// race for the row to a later one and be granted after it, out of order.
//
// An acquisition that finds the lock taken marks its row as waited for, so that the release
// tells the waiters (kRelease); a row marked already is left alone. A new holder's row is
// marked only when waiters of the holder's own client wait for the lock ($6, others_wait): a
// release wakes one waiter per client (ReleaseListener), which tries again; the waiters it did
// not wake belong to a client whose woken waiter either failed, and marked the new row, or won,
// and then its grant carries the mark. `%`: the acquisition may take the row (free, or this
// owner's).
constexpr std::string_view kAcquire = R"(
WITH turn AS (SELECT pg_advisory_xact_lock(hashtext('{table_key}'), hashtext($1))),
clock AS (SELECT clock_timestamp() AS now FROM turn),
tried AS (
  INSERT INTO {table} AS l (name, owner, fence, holds, holder, expires_at, waited)
  SELECT $1, $2, nextval('{fence}'), ARRAY[$4::text], $5,
         now + $3::bigint * interval '1 millisecond', $6::boolean FROM clock
  ON CONFLICT (name) DO UPDATE SET
    fence = CASE WHEN NOT % OR @ THEN l.fence ELSE excluded.fence END,
    holds = CASE WHEN NOT % THEN l.holds
                 WHEN @ THEN (CASE WHEN $4 = ANY (l.holds) THEN l.holds ELSE l.holds || $4::text END)
                 ELSE excluded.holds END,
    holder = CASE WHEN NOT % OR @ THEN l.holder ELSE excluded.holder END,
    expires_at = CASE WHEN NOT % THEN l.expires_at
                      WHEN @ THEN GREATEST(l.expires_at, excluded.expires_at)
                      ELSE excluded.expires_at END,
    owner = CASE WHEN NOT % THEN l.owner ELSE excluded.owner END,
    waited = CASE WHEN NOT % THEN true WHEN @ THEN l.waited ELSE $6::boolean END
  WHERE % OR NOT l.waited
  RETURNING l.owner = $2 AS took, l.fence, l.expires_at)
SELECT CASE WHEN took THEN fence END,
       CASE WHEN NOT took THEN
         GREATEST(0, CEIL(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000))::bigint END
  FROM tried
UNION ALL
SELECT NULL, GREATEST(0, CEIL(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000))::bigint
  FROM {table} WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM tried))";

// Whether an exclusive acquisition may take the row.
constexpr std::string_view kTakes = "l.owner = $2 OR l.expires_at <= (SELECT now FROM clock)";

// The fair lock is the exclusive lock's row, taken only by the first live place in the queue
// (the holds table's 'queued' rows, in the order of `place`) when it is free; the place goes
// with the grant, and otherwise each try keeps it one ttl longer. A live row of this owner is
// still re-entered, retried or taken over as an orphan: that lets nobody past the queue. It
// runs after the name's turn (Connection::run_after), so it sees every place that committed
// before. A try that finds the row taken marks it as waited for, as kAcquire does, so that a
// plain release wakes the queue too (a fair release tells the next place in any case). $1..$7
// as kAcquire.
constexpr std::string_view kAcquireFair = R"(
WITH clock AS (SELECT clock_timestamp() AS now),
places AS (
  SELECT h.id, h.place, h.expires_at FROM {holds} h, clock
   WHERE h.name = $1 AND h.kind = 'queued' AND h.expires_at > clock.now),
mine AS (SELECT place FROM places WHERE id = $4),
ahead AS (
  SELECT expires_at FROM places
   WHERE id <> $4 AND place < COALESCE((SELECT place FROM mine), 9223372036854775807)),
own AS (
  SELECT 1 FROM {table}, clock WHERE name = $1 AND owner = $2 AND expires_at > clock.now),
taken AS (
  INSERT INTO {table} AS l (name, owner, fence, holds, holder, expires_at, waited)
  SELECT $1, $2, nextval('{fence}'), ARRAY[$4::text], $5,
         clock.now + $3::bigint * interval '1 millisecond', $6::boolean FROM clock
   WHERE NOT EXISTS (SELECT 1 FROM ahead) OR EXISTS (SELECT 1 FROM own)
  ON CONFLICT (name) DO UPDATE SET
    fence = CASE WHEN @ THEN l.fence ELSE excluded.fence END,
    holds = CASE WHEN @ THEN (CASE WHEN $4 = ANY (l.holds) THEN l.holds ELSE l.holds || $4::text END)
                 ELSE excluded.holds END,
    holder = CASE WHEN @ THEN l.holder ELSE excluded.holder END,
    expires_at = CASE WHEN @ THEN GREATEST(l.expires_at, excluded.expires_at)
                      ELSE excluded.expires_at END,
    owner = excluded.owner,
    waited = (@ AND l.waited) OR $6::boolean
  WHERE (l.owner = $2 AND l.expires_at > (SELECT now FROM clock))
     OR (l.expires_at <= (SELECT now FROM clock) AND NOT EXISTS (SELECT 1 FROM ahead))
  RETURNING l.fence),
marked AS (
  UPDATE {table} SET waited = true
   WHERE name = $1 AND NOT waited AND NOT EXISTS (SELECT 1 FROM taken)),
left_queue AS (
  DELETE FROM {holds} WHERE name = $1 AND id = $4 AND EXISTS (SELECT 1 FROM taken)),
queued AS (
  INSERT INTO {holds} AS h (name, id, kind, owner, fence, place, holder, expires_at)
  SELECT $1, $4, 'queued', $2, NULL, COALESCE((SELECT place FROM mine), nextval('{fence}')), $5,
         clock.now + $3::bigint * interval '1 millisecond' FROM clock
   WHERE NOT EXISTS (SELECT 1 FROM taken)
  ON CONFLICT (name, id) DO UPDATE SET
    kind = 'queued', place = excluded.place, expires_at = excluded.expires_at),
pruned AS (
  DELETE FROM {holds} h USING clock WHERE h.name = $1 AND h.id <> $4 AND h.expires_at <= clock.now)
SELECT fence, NULL::bigint FROM taken
UNION ALL
SELECT NULL, GREATEST(0, CEIL(EXTRACT(EPOCH FROM (COALESCE(
         (SELECT l.expires_at FROM {table} l WHERE l.name = $1 AND l.expires_at > clock.now),
         (SELECT min(expires_at) FROM ahead), clock.now) - clock.now)) * 1000))::bigint
  FROM clock WHERE NOT EXISTS (SELECT 1 FROM taken))";

// The shared holds of a read-write lock and of a semaphore are rows of the holds table, one per
// acquisition, each with its own fence, expiry and renewal: 'read' and 'write' rows and the
// 'writer' marks of waiting writers make the read-write lock of a name, 'permit' rows its
// semaphore. A row whose expiry has passed counts for nothing and is pruned by the next
// statement on the name. These statements run after the name's turn, as kAcquireFair does.
//
// A writer is granted when no live reader and no other owner's live writer is left: a retry
// keeps its fence, a reentry ($6) shares the owner's live write's, and without a reentry the
// owner's other live writes are orphans and go. Not granted, it marks itself a waiting writer
// for one ttl, which holds new readers back. $1 name, $2 owner, $3 ttl in ms, $4 acquisition
// id, $5 holder, $6 reentry. One row, as kAcquire's.
constexpr std::string_view kAcquireWrite = R"(
WITH clock AS (SELECT clock_timestamp() AS now),
live AS (
  SELECT h.* FROM {holds} h, clock
   WHERE h.name = $1 AND h.kind IN ('read', 'write') AND h.expires_at > clock.now),
decision AS (
  SELECT COALESCE((SELECT fence FROM live WHERE id = $4 AND kind = 'write'),
                  (SELECT max(fence) FROM live WHERE kind = 'write' AND owner = $2 AND $6::boolean))
           AS fence_held,
         NOT EXISTS (SELECT 1 FROM live WHERE kind = 'read' OR (kind = 'write' AND owner <> $2))
           AS free),
written AS (
  INSERT INTO {holds} AS h (name, id, kind, owner, fence, place, holder, expires_at)
  SELECT $1, $4, 'write', $2, COALESCE(d.fence_held, nextval('{fence}')), NULL, $5,
         clock.now + $3::bigint * interval '1 millisecond' FROM decision d, clock
   WHERE d.fence_held IS NOT NULL OR d.free
  ON CONFLICT (name, id) DO UPDATE SET
    kind = 'write', owner = excluded.owner, fence = excluded.fence,
    holder = CASE WHEN h.kind = 'write' THEN h.holder ELSE excluded.holder END,
    expires_at = GREATEST(h.expires_at, excluded.expires_at)
  RETURNING h.fence),
orphans AS (
  DELETE FROM {holds} h USING clock
   WHERE h.name = $1 AND h.kind = 'write' AND h.owner = $2 AND h.id <> $4 AND NOT $6::boolean
     AND h.expires_at > clock.now AND EXISTS (SELECT 1 FROM written)),
marked AS (
  INSERT INTO {holds} AS h (name, id, kind, owner, fence, place, holder, expires_at)
  SELECT $1, $4, 'writer', $2, NULL, NULL, $5,
         clock.now + $3::bigint * interval '1 millisecond' FROM clock
   WHERE NOT EXISTS (SELECT 1 FROM written)
  ON CONFLICT (name, id) DO UPDATE SET kind = 'writer', expires_at = excluded.expires_at),
pruned AS (
  DELETE FROM {holds} h USING clock WHERE h.name = $1 AND h.id <> $4 AND h.expires_at <= clock.now)
SELECT fence, NULL::bigint FROM written
UNION ALL
SELECT NULL, GREATEST(0, CEIL(EXTRACT(EPOCH FROM (COALESCE(
         (SELECT max(expires_at) FROM live WHERE kind = 'read' OR (kind = 'write' AND owner <> $2)),
         clock.now) - clock.now)) * 1000))::bigint
  FROM clock WHERE NOT EXISTS (SELECT 1 FROM written))";

// A reader is granted when no live writer is left (but its own owner's, $7: it holds the write
// side) and no writer waits, unless this owner reads the lock already ($6: holding it back
// would have it wait for itself) or holds its write side. A retry keeps its fence; every other
// read takes a fence of its own. $1..$6 as kAcquireWrite, $7 holds_write.
constexpr std::string_view kAcquireRead = R"(
WITH clock AS (SELECT clock_timestamp() AS now),
live AS (
  SELECT h.* FROM {holds} h, clock
   WHERE h.name = $1 AND h.kind IN ('read', 'write', 'writer') AND h.expires_at > clock.now),
blocking AS (
  SELECT expires_at FROM live
   WHERE (kind = 'write' AND NOT $7::boolean)
      OR (kind = 'writer' AND NOT $6::boolean AND NOT $7::boolean)),
decision AS (
  SELECT (SELECT fence FROM live WHERE id = $4 AND kind = 'read') AS fence_held,
         NOT EXISTS (SELECT 1 FROM blocking) AS free),
taken AS (
  INSERT INTO {holds} AS h (name, id, kind, owner, fence, place, holder, expires_at)
  SELECT $1, $4, 'read', $2, COALESCE(d.fence_held, nextval('{fence}')), NULL, $5,
         clock.now + $3::bigint * interval '1 millisecond' FROM decision d, clock
   WHERE d.fence_held IS NOT NULL OR d.free
  ON CONFLICT (name, id) DO UPDATE SET
    kind = 'read', owner = excluded.owner, fence = excluded.fence,
    holder = CASE WHEN h.kind = 'read' THEN h.holder ELSE excluded.holder END,
    expires_at = GREATEST(h.expires_at, excluded.expires_at)
  RETURNING h.fence),
pruned AS (
  DELETE FROM {holds} h USING clock WHERE h.name = $1 AND h.id <> $4 AND h.expires_at <= clock.now)
SELECT fence, NULL::bigint FROM taken
UNION ALL
SELECT NULL, GREATEST(0, CEIL(EXTRACT(EPOCH FROM (COALESCE(
         (SELECT max(expires_at) FROM blocking), clock.now) - clock.now)) * 1000))::bigint
  FROM clock WHERE NOT EXISTS (SELECT 1 FROM taken))";

// A permit is granted while fewer than $6 live permits are held by other acquisitions (N is
// the acquirer's, as on Redis); a retry keeps its fence. Not granted, the ms until the first
// live permit runs out. $1..$5 as kAcquireWrite, $6 permits.
constexpr std::string_view kAcquirePermit = R"(
WITH clock AS (SELECT clock_timestamp() AS now),
live AS (
  SELECT h.* FROM {holds} h, clock
   WHERE h.name = $1 AND h.kind = 'permit' AND h.expires_at > clock.now),
decision AS (
  SELECT (SELECT fence FROM live WHERE id = $4) AS fence_held,
         (SELECT count(*) FROM live WHERE id <> $4) < $6::bigint AS free),
taken AS (
  INSERT INTO {holds} AS h (name, id, kind, owner, fence, place, holder, expires_at)
  SELECT $1, $4, 'permit', $2, COALESCE(d.fence_held, nextval('{fence}')), NULL, $5,
         clock.now + $3::bigint * interval '1 millisecond' FROM decision d, clock
   WHERE d.fence_held IS NOT NULL OR d.free
  ON CONFLICT (name, id) DO UPDATE SET
    kind = 'permit', owner = excluded.owner, fence = excluded.fence,
    holder = CASE WHEN h.kind = 'permit' THEN h.holder ELSE excluded.holder END,
    expires_at = GREATEST(h.expires_at, excluded.expires_at)
  RETURNING h.fence),
pruned AS (
  DELETE FROM {holds} h USING clock WHERE h.name = $1 AND h.id <> $4 AND h.expires_at <= clock.now)
SELECT fence, NULL::bigint FROM taken
UNION ALL
SELECT NULL, GREATEST(0, CEIL(EXTRACT(EPOCH FROM (COALESCE(
         (SELECT min(expires_at) FROM live WHERE id <> $4), clock.now) - clock.now)) * 1000))::bigint
  FROM clock WHERE NOT EXISTS (SELECT 1 FROM taken))";

// An exclusive lock's release notification, in every statement that releases one: {payload}
// is 'n', the acquisition id of the first live place in the fair queue ({next_in_line}, joined
// as n), a newline and the lock's name, so that the listener wakes that waiter alone, with the
// plain waiters of the lock, whoever releases; with nobody queued, the name after `how` ('f':
// freed, 'k': kept); empty when the name is too long for a payload (8,000 bytes), which wakes
// every waiter. A plain release that named the lock only would have each client wake one of its
// waiters, maybe a fair one whose turn it is not, and the first in line wait for its next look.
constexpr std::string_view kNextInLine = R"(
  SELECT id FROM {holds}
   WHERE name = $1 AND kind = 'queued' AND expires_at > clock_timestamp()
   ORDER BY place LIMIT 1)";
constexpr std::string_view kReleasePayload = R"(CASE
           WHEN octet_length($1) + COALESCE(octet_length(n.id), 0) >= 7900 THEN ''
           WHEN n.id IS NULL THEN how || $1
           ELSE 'n' || n.id || E'\n' || $1 END)";

// The common release: this acquisition is the lock's only hold, and the lock is freed now. It
// deletes the row, and notifies only when someone waits (the row is marked); no row comes back
// when the row is not so, and kRelease decides. $1 name, $2 acquisition id.
constexpr std::string_view kReleaseSole = R"(
DELETE FROM {table}
 WHERE name = $1 AND holds = ARRAY[$2::text] AND expires_at > clock_timestamp()
RETURNING CASE WHEN waited THEN pg_notify('{channel}', (
                 SELECT {payload} FROM (SELECT 'f'::text AS how) AS ended
                   LEFT JOIN ({next_in_line}) AS n ON true)) IS NOT NULL
               ELSE false END)";

// Every release of an exclusive lock: the hold is counted down (a reentry's), or the lock is
// kept taken by nobody ($3 ms, hold_at_least) or freed, which notifies its waiters, if any.
constexpr std::string_view kRelease = R"(
WITH counted_down AS (
  UPDATE {table} SET holds = array_remove(holds, $2::text)
   WHERE name = $1 AND $2 = ANY (holds) AND cardinality(holds) > 1
     AND expires_at > clock_timestamp()
  RETURNING 1),
kept AS (
  UPDATE {table} SET owner = '', holds = ARRAY[]::text[],
         expires_at = clock_timestamp() + $3::bigint * interval '1 millisecond'
   WHERE name = $1 AND holds = ARRAY[$2::text] AND $3::bigint > 0
     AND expires_at > clock_timestamp()
  RETURNING 'k'::text AS how, waited),
freed AS (
  DELETE FROM {table}
   WHERE name = $1 AND holds = ARRAY[$2::text] AND $3::bigint = 0
     AND expires_at > clock_timestamp()
  RETURNING 'f'::text AS how, waited),
told AS (
  SELECT pg_notify('{channel}', {payload})
    FROM (SELECT how, waited FROM kept UNION ALL SELECT how, waited FROM freed) AS ended
    LEFT JOIN ({next_in_line}) AS n ON true
   WHERE ended.waited)
SELECT (SELECT count(*) FROM counted_down) + (SELECT count(*) FROM kept) +
       (SELECT count(*) FROM freed), (SELECT count(*) FROM told))";

// A fair lock's release is kRelease, which also notifies when a place is queued and the row is
// not marked. It runs after the name's turn, so it sees every place that committed before.
constexpr std::string_view kReleaseFair = R"(
WITH counted_down AS (
  UPDATE {table} SET holds = array_remove(holds, $2::text)
   WHERE name = $1 AND $2 = ANY (holds) AND cardinality(holds) > 1
     AND expires_at > clock_timestamp()
  RETURNING 1),
kept AS (
  UPDATE {table} SET owner = '', holds = ARRAY[]::text[],
         expires_at = clock_timestamp() + $3::bigint * interval '1 millisecond'
   WHERE name = $1 AND holds = ARRAY[$2::text] AND $3::bigint > 0
     AND expires_at > clock_timestamp()
  RETURNING 'k'::text AS how, waited),
freed AS (
  DELETE FROM {table}
   WHERE name = $1 AND holds = ARRAY[$2::text] AND $3::bigint = 0
     AND expires_at > clock_timestamp()
  RETURNING 'f'::text AS how, waited),
told AS (
  SELECT pg_notify('{channel}', {payload})
    FROM (SELECT how, waited FROM kept UNION ALL SELECT how, waited FROM freed) AS ended
    LEFT JOIN ({next_in_line}) AS n ON true
   WHERE ended.waited OR n.id IS NOT NULL)
SELECT (SELECT count(*) FROM counted_down) + (SELECT count(*) FROM kept) +
       (SELECT count(*) FROM freed), (SELECT count(*) FROM told))";

// A shared hold's release removes its row, or with $3 > 0 keeps it, by nobody, until then
// (hold_at_least). It tells the lock's waiters ('r' and the name for a read-write lock; for
// a semaphore 'p' when a permit is free again, 'q' when it is kept), except for a reader that
// leaves other live readers behind: a writer still waits for them, and a reader was not
// waiting for it. $1 name, $2 acquisition id, $3 ms to keep the hold (0: remove it now). One
// row as kRelease's.
constexpr std::string_view kReleaseShared = R"(
WITH clock AS (SELECT clock_timestamp() AS now),
kept AS (
  UPDATE {holds} h SET owner = '', expires_at = clock.now + $3::bigint * interval '1 millisecond'
    FROM clock
   WHERE h.name = $1 AND h.id = $2 AND h.kind IN ('read', 'write', 'permit') AND h.owner <> ''
     AND h.expires_at > clock.now AND $3::bigint > 0
  RETURNING h.kind),
freed AS (
  DELETE FROM {holds} h USING clock
   WHERE h.name = $1 AND h.id = $2 AND h.kind IN ('read', 'write', 'permit') AND h.owner <> ''
     AND h.expires_at > clock.now AND $3::bigint = 0
  RETURNING h.kind),
ended AS (SELECT kind FROM kept UNION ALL SELECT kind FROM freed),
told AS (
  SELECT pg_notify('{channel}', CASE WHEN octet_length($1) >= 7900 THEN ''
                                     WHEN kind <> 'permit' THEN 'r' || $1
                                     WHEN $3::bigint > 0 THEN 'q' || $1 ELSE 'p' || $1 END)
    FROM ended, clock
   WHERE kind <> 'read' OR $3::bigint > 0 OR NOT EXISTS (
           SELECT 1 FROM {holds} h
            WHERE h.name = $1 AND h.id <> $2 AND h.kind = 'read' AND h.expires_at > clock.now))
SELECT (SELECT count(*) FROM ended), (SELECT count(*) FROM told))";

// A waiter that leaves without the lock takes its fair place or its writer's mark back at once.
// A writer's mark that was the last lets the readers in: they are told ('r'). A place that was
// first, in front of a free lock, hands the turn on: the next place is named as a fair release
// names it. It runs after the name's turn. $1 name, $2 acquisition id. One row: the number of
// rows removed.
constexpr std::string_view kWithdraw = R"(
WITH clock AS (SELECT clock_timestamp() AS now),
gone AS (
  DELETE FROM {holds} h USING clock
   WHERE h.name = $1 AND h.id = $2 AND h.kind IN ('queued', 'writer')
  RETURNING h.kind, h.place, h.expires_at > clock.now AS live),
readers_let_in AS (
  SELECT 1 FROM gone, clock
   WHERE gone.kind = 'writer' AND NOT EXISTS (
           SELECT 1 FROM {holds} h
            WHERE h.name = $1 AND h.id <> $2 AND h.kind = 'writer' AND h.expires_at > clock.now)),
next_in_line AS (
  SELECT h.id FROM {holds} h, gone, clock
   WHERE gone.kind = 'queued' AND gone.live AND h.name = $1 AND h.kind = 'queued'
     AND h.id <> $2 AND h.expires_at > clock.now
     AND NOT EXISTS (SELECT 1 FROM {holds} a
                      WHERE a.name = $1 AND a.kind = 'queued' AND a.id <> $2
                        AND a.expires_at > clock.now AND a.place < gone.place)
     AND NOT EXISTS (SELECT 1 FROM {table} l WHERE l.name = $1 AND l.expires_at > clock.now)
   ORDER BY h.place LIMIT 1),
told AS (
  SELECT pg_notify('{channel}', CASE WHEN octet_length($1) >= 7900 THEN '' ELSE 'r' || $1 END)
    FROM readers_let_in
  UNION ALL
  SELECT pg_notify('{channel}', CASE WHEN octet_length($1) + octet_length(id) >= 7900 THEN ''
                                     ELSE 'n' || id || E'\n' || $1 END)
    FROM next_in_line)
SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM told))";

// The name's turn: the statement after it, in the same transaction, runs once no other
// statement on the name is running, and sees what they committed (Connection::run_after).
constexpr std::string_view kTurn = R"(
SELECT pg_advisory_xact_lock(hashtext('{table_key}'), hashtext($1)))";

constexpr std::string_view kRenew = R"(
WITH asked AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) AS a(name, id, ttl)),
renewed AS (
  UPDATE {table} AS l
     SET expires_at = GREATEST(l.expires_at,
                               clock_timestamp() + longest.ttl * interval '1 millisecond')
    FROM (SELECT name, max(ttl) AS ttl FROM asked GROUP BY name) AS longest
   WHERE l.name = longest.name AND l.expires_at > clock_timestamp()
     AND EXISTS (SELECT 1 FROM asked WHERE asked.name = l.name AND asked.id = ANY (l.holds))
  RETURNING l.name, l.holds),
renewed_shared AS (
  UPDATE {holds} AS h
     SET expires_at = GREATEST(h.expires_at, clock_timestamp() + asked.ttl * interval '1 millisecond')
    FROM asked
   WHERE h.name = asked.name AND h.id = asked.id AND h.kind IN ('read', 'write', 'permit')
     AND h.owner <> '' AND h.expires_at > clock_timestamp()
  RETURNING h.id)
SELECT asked.id FROM asked JOIN renewed ON renewed.name = asked.name
 WHERE asked.id = ANY (renewed.holds)
UNION ALL
SELECT id FROM renewed_shared)";

// Clients that start together take turns (the advisory lock), so that none fails on another's
// half-made table.
constexpr std::string_view kDdl = R"(
BEGIN;
SELECT pg_advisory_xact_lock(hashtext('{table_key}'));
CREATE TABLE IF NOT EXISTS {table} (
  name text PRIMARY KEY,
  owner text NOT NULL,
  fence bigint NOT NULL,
  holds text[] NOT NULL,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL,
  waited boolean NOT NULL DEFAULT false);
CREATE SEQUENCE IF NOT EXISTS {fence};
CREATE TABLE IF NOT EXISTS {holds} (
  name text NOT NULL,
  id text NOT NULL,
  kind text NOT NULL,
  owner text NOT NULL,
  fence bigint,
  place bigint,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (name, id));
COMMIT;)";

// The exclusive lock's statements, with `@` written out as kContinuing and `%` as kTakes.
std::string with_conditions(std::string_view statement) {
  std::string text(statement);
  for (auto at = text.find_first_of("@%"); at != std::string::npos;
       at = text.find_first_of("@%", at)) {
    const std::string condition(text[at] == '@' ? kContinuing : kTakes);
    text.replace(at, 1, "(" + condition + ")");
    at += condition.size() + 2;
  }
  return text;
}

}  // namespace

std::string quoted_identifier(std::string_view name) {
  std::string quoted = "\"";
  for (const char c : name)
    quoted += c == '.' ? std::string_view("\".\"") : std::string_view(&c, 1);
  return quoted + '"';
}

std::string with_names(std::string_view text, const PostgresSettings& settings) {
  std::string written;
  while (!text.empty()) {
    const auto open = text.find('{');
    written += text.substr(0, open);
    if (open == std::string_view::npos) break;
    const auto close = text.find('}', open);
    const std::string_view name = text.substr(open + 1, close - open - 1);
    written += name == "table"          ? quoted_identifier(settings.table)
               : name == "holds"        ? quoted_identifier(settings.holds_table)
               : name == "fence"        ? quoted_identifier(settings.fence_sequence)
               : name == "table_key"    ? settings.table
               : name == "next_in_line" ? with_names(kNextInLine, settings)
               : name == "payload"      ? std::string(kReleasePayload)
                                        : settings.channel;
    text = text.substr(close + 1);
  }
  return written;
}

LockStatements lock_statements(const PostgresSettings& settings) {
  return {{"distlock_acquire_absent", with_names(kAcquireAbsent, settings)},
          {"distlock_acquire", with_names(with_conditions(kAcquire), settings)},
          {"distlock_acquire_fair", with_names(with_conditions(kAcquireFair), settings)},
          {"distlock_acquire_read", with_names(kAcquireRead, settings)},
          {"distlock_acquire_write", with_names(kAcquireWrite, settings)},
          {"distlock_acquire_permit", with_names(kAcquirePermit, settings)},
          {"distlock_release_sole", with_names(kReleaseSole, settings)},
          {"distlock_release", with_names(kRelease, settings)},
          {"distlock_release_fair", with_names(kReleaseFair, settings)},
          {"distlock_release_shared", with_names(kReleaseShared, settings)},
          {"distlock_withdraw", with_names(kWithdraw, settings)},
          {"distlock_renew", with_names(kRenew, settings)},
          {"distlock_turn", with_names(kTurn, settings)}};
}

std::string lock_table_ddl(const PostgresSettings& settings) { return with_names(kDdl, settings); }

}  // namespace distlock::detail::postgres
