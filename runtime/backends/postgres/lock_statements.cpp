// SPDX-License-Identifier: Apache-2.0
#include "backends/postgres/lock_statements.h"

#include <string_view>

namespace distlock::detail::postgres {
namespace {

// The statements name the table, the sequence and the channel of the settings in place of
// {table}, {fence} and {channel}.
std::string with_names(std::string_view text, const PostgresSettings& settings) {
  std::string written;
  while (!text.empty()) {
    const auto open = text.find('{');
    written += text.substr(0, open);
    if (open == std::string_view::npos) break;
    const auto close = text.find('}', open);
    const std::string_view name = text.substr(open + 1, close - open - 1);
    written += name == "table"   ? settings.table
               : name == "fence" ? settings.fence_sequence
                                 : settings.channel;
    text = text.substr(close + 1);
  }
  return written;
}

// The holder of a live lock is this owner, and this acquisition holds it already (a retry
// after a lost reply) or the owner re-enters it: the lock stays as it is, with one more hold.
// Any other row this owner has is an orphan of an acquisition whose reply was lost, and is
// taken over anew, as an expired one is.
constexpr std::string_view kContinuing =
    "l.owner = $2 AND l.expires_at > clock_timestamp() AND ($4 = ANY (l.holds) OR $6::boolean)";

// The fence is drawn only once the acquisition has its turn at the lock's name (an advisory
// lock held to the end of the statement's transaction): drawn before, a fence could lose the
// race for the row to a later one and be granted after it, out of order.
constexpr std::string_view kAcquire = R"(
WITH turn AS (SELECT pg_advisory_xact_lock(hashtext('{table}'), hashtext($1))),
taken AS (
  INSERT INTO {table} AS l (name, owner, fence, holds, holder, expires_at)
  SELECT $1, $2, nextval('{fence}'), ARRAY[$4::text], $5,
         clock_timestamp() + $3::bigint * interval '1 millisecond' FROM turn
  ON CONFLICT (name) DO UPDATE SET
    fence = CASE WHEN @ THEN l.fence ELSE excluded.fence END,
    holds = CASE WHEN @ THEN (CASE WHEN $4 = ANY (l.holds) THEN l.holds ELSE l.holds || $4::text END)
                 ELSE excluded.holds END,
    holder = CASE WHEN @ THEN l.holder ELSE excluded.holder END,
    expires_at = CASE WHEN @ THEN GREATEST(l.expires_at, excluded.expires_at)
                      ELSE excluded.expires_at END,
    owner = excluded.owner
  WHERE l.owner = $2 OR l.expires_at <= clock_timestamp()
  RETURNING l.fence)
SELECT fence, NULL::bigint FROM taken
UNION ALL
SELECT NULL, GREATEST(0, CEIL(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000))::bigint
  FROM {table} WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM taken))";

// The payload names the lock ('f': freed, 'k': kept), unless the name is too long for a
// payload (8,000 bytes): then it names none, which wakes every waiter.
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
  RETURNING 'k'::text AS how),
freed AS (
  DELETE FROM {table}
   WHERE name = $1 AND holds = ARRAY[$2::text] AND $3::bigint = 0
     AND expires_at > clock_timestamp()
  RETURNING 'f'::text AS how),
told AS (
  SELECT pg_notify('{channel}', how || CASE WHEN octet_length($1) < 7900 THEN $1 ELSE '' END)
    FROM (SELECT how FROM kept UNION ALL SELECT how FROM freed) AS ended)
SELECT (SELECT count(*) FROM counted_down) + (SELECT count(*) FROM kept) +
       (SELECT count(*) FROM freed), (SELECT count(*) FROM told))";

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
  RETURNING l.name, l.holds)
SELECT asked.id FROM asked JOIN renewed ON renewed.name = asked.name
 WHERE asked.id = ANY (renewed.holds))";

// Clients that start together take turns (the advisory lock), so that none fails on another's
// half-made table.
constexpr std::string_view kDdl = R"(
BEGIN;
SELECT pg_advisory_xact_lock(hashtext('{table}'));
CREATE TABLE IF NOT EXISTS {table} (
  name text PRIMARY KEY,
  owner text NOT NULL,
  fence bigint NOT NULL,
  holds text[] NOT NULL,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL);
CREATE SEQUENCE IF NOT EXISTS {fence};
COMMIT;)";

std::string acquire_text() {
  std::string text(kAcquire);
  for (auto at = text.find('@'); at != std::string::npos; at = text.find('@', at))
    text.replace(at, 1, "(" + std::string(kContinuing) + ")");
  return text;
}

}  // namespace

LockStatements lock_statements(const PostgresSettings& settings) {
  return {{"distlock_acquire", with_names(acquire_text(), settings)},
          {"distlock_release", with_names(kRelease, settings)},
          {"distlock_renew", with_names(kRenew, settings)}};
}

std::string lock_table_ddl(const PostgresSettings& settings) { return with_names(kDdl, settings); }

}  // namespace distlock::detail::postgres
