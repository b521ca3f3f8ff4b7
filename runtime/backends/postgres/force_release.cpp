// SPDX-License-Identifier: Apache-2.0
#include "backends/postgres/force_release.h"

#include "backends/postgres/lock_listing.h"
#include "backends/postgres/lock_statements.h"

namespace distlock::detail::postgres {
namespace {

// $1 name, $2 acquisition id ('': every hold). The removed rows in lock_listing.h's columns.
// The notifications are the releases' (release_listener.h): the lock table's row freed names
// the first live fair place ('n', its id, a newline, the name), so that its waiter is the one
// woken, or with nobody queued names the lock ('f'); a read-write lock's rows removed send 'r'
// and the name, a semaphore's permits 'q' and the name (one notification for all of them, so
// it wakes every waiter of the semaphore). A name too long for a payload sends none, which
// wakes every waiter. The `told` count in every row makes the server run them.
constexpr std::string_view kForceRelease = R"(
WITH clock AS (SELECT clock_timestamp() AS now),
next_in_line AS (
  SELECT q.id FROM {holds} q, clock
   WHERE q.name = $1 AND q.kind = 'queued' AND q.expires_at > clock.now
   ORDER BY q.place LIMIT 1),
freed AS (
  DELETE FROM {table} l USING clock
   WHERE l.name = $1 AND l.expires_at > clock.now AND ($2 = '' OR $2 = ANY (l.holds))
  RETURNING CASE WHEN EXISTS (SELECT 1 FROM next_in_line) THEN 'fair' ELSE 'exclusive' END
              AS kind,
            l.name, COALESCE(l.holds[1], '') AS id, l.owner, l.fence, l.holder,
            cardinality(l.holds) AS count,
            CEIL(EXTRACT(EPOCH FROM (l.expires_at - clock.now)) * 1000)::bigint AS left_ms),
freed_shared AS (
  DELETE FROM {holds} h USING clock
   WHERE h.name = $1 AND h.kind IN ('read', 'write', 'permit') AND h.expires_at > clock.now
     AND ($2 = '' OR h.id = $2)
  RETURNING h.kind, h.name, h.id, h.owner, h.fence, h.holder, 1 AS count,
            CEIL(EXTRACT(EPOCH FROM (h.expires_at - clock.now)) * 1000)::bigint AS left_ms),
told AS (
  SELECT pg_notify('{channel}', CASE
           WHEN octet_length($1) + COALESCE(octet_length(n.id), 0) >= 7900 THEN ''
           WHEN n.id IS NULL THEN 'f' || $1
           ELSE 'n' || n.id || E'\n' || $1 END)
    FROM (SELECT 1 FROM freed) AS ended LEFT JOIN next_in_line n ON true
  UNION ALL
  SELECT pg_notify('{channel}', CASE WHEN octet_length($1) >= 7900 THEN '' ELSE letter || $1 END)
    FROM (SELECT DISTINCT CASE WHEN kind = 'permit' THEN 'q' ELSE 'r' END AS letter
            FROM freed_shared) AS ended_shared)
SELECT removed.*, (SELECT count(*) FROM told) AS told
  FROM (SELECT * FROM freed UNION ALL SELECT * FROM freed_shared) AS removed)";

}  // namespace

std::vector<admin::ReleasedHold> force_release(Connection& connection,
                                               const PostgresSettings& settings,
                                               const std::string& name,
                                               const std::optional<std::string>& acquisition_id) {
  const Statement statement{"distlock_admin_force_release", with_names(kForceRelease, settings)};
  const std::string turn_params[] = {name};
  const std::string params[] = {name, acquisition_id.value_or("")};
  const Result rows =
      connection.run_after(lock_statements(settings).turn, turn_params, statement, params);
  const int removed = PQntuples(rows.get());
  std::vector<admin::ReleasedHold> released;
  released.reserve(static_cast<std::size_t>(removed));
  for (int row = 0; row < removed; ++row)
    released.push_back({name, hold_of_row(*rows, row, settings)});
  return released;
}

}  // namespace distlock::detail::postgres
