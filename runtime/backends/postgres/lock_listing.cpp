// SPDX-License-Identifier: Apache-2.0
#include "backends/postgres/lock_listing.h"

#include <chrono>
#include <map>

#include "admin/holder_text.h"
#include "admin/lock_inspector.h"
#include "backends/postgres/lock_statements.h"
#include "util/decimal.h"

namespace distlock::detail::postgres {
namespace {

using admin::HoldKind;

// `@` stands for the test of the names wanted ($1), on a column `name`. The clock is read once:
// every row is judged live or not, and its time left counted, at the same instant. The two
// tables are read by one statement, in one snapshot.
constexpr std::string_view kListing = R"(
WITH clock AS (SELECT clock_timestamp() AS now),
locks AS (SELECT * FROM {table} WHERE @),
holds AS (SELECT * FROM {holds} WHERE @)
SELECT CASE WHEN EXISTS (
              SELECT 1 FROM holds q
               WHERE q.name = l.name AND q.kind = 'queued' AND q.expires_at > clock.now)
            THEN 'fair' ELSE 'exclusive' END AS kind,
       l.name, COALESCE(l.holds[1], '') AS id, l.owner, l.fence, l.holder,
       cardinality(l.holds) AS count,
       CEIL(EXTRACT(EPOCH FROM (l.expires_at - clock.now)) * 1000)::bigint AS left_ms,
       NULL::bigint AS place
  FROM locks l, clock WHERE l.expires_at > clock.now
UNION ALL
SELECT h.kind, h.name, h.id, h.owner, h.fence, h.holder, 1,
       CEIL(EXTRACT(EPOCH FROM (h.expires_at - clock.now)) * 1000)::bigint, h.place
  FROM holds h, clock WHERE h.expires_at > clock.now
ORDER BY name, place, fence)";

// A row's text in a column; empty for NULL.
std::string column_text(const PGresult& rows, int row, RowColumn column) {
  return PQgetvalue(&rows, row, static_cast<int>(column));
}

Statement listing_statement(const char* statement_name, std::string_view name_test,
                            const PostgresSettings& settings) {
  std::string text = with_names(kListing, settings);
  for (auto at = text.find('@'); at != std::string::npos; at = text.find('@', at))
    text.replace(at, 1, name_test);
  return {statement_name, std::move(text)};
}

// The start of a glob up to its first wildcard or escape: every name it matches starts so,
// which the server can test before the glob is.
std::string literal_start(std::string_view glob) {
  return std::string(glob.substr(0, glob.find_first_of("*?[\\")));
}

std::optional<HoldKind> kind_of_hold_row(std::string_view kind) {
  if (kind == "exclusive") return HoldKind::exclusive;
  if (kind == "fair") return HoldKind::fair;
  if (kind == "read") return HoldKind::read;
  if (kind == "write") return HoldKind::write;
  if (kind == "permit") return HoldKind::semaphore;
  return std::nullopt;
}

// Where a row lives, as listings show it: "<lock table> <name>", or for a row of the holds
// table "<holds table> <name> <acquisition id>" (its key).
std::string row_location(const PGresult& rows, int row, const PostgresSettings& settings) {
  const std::string kind = column_text(rows, row, RowColumn::kind);
  const std::string name = column_text(rows, row, RowColumn::name);
  if (kind == "exclusive" || kind == "fair") return settings.table + ' ' + name;
  return settings.holds_table + ' ' + name + ' ' + column_text(rows, row, RowColumn::id);
}

admin::Waiter waiter_of_row(const PGresult& rows, int row, HoldKind kind,
                            const PostgresSettings& settings) {
  const HolderText holder = parse_holder_text(column_text(rows, row, RowColumn::holder));
  return {kind,
          {column_text(rows, row, RowColumn::id), holder.host, holder.pid},
          row_location(rows, row, settings)};
}

std::vector<admin::LockState> locks_of_rows(const PGresult& rows, std::string_view pattern,
                                            const PostgresSettings& settings) {
  std::map<std::string, admin::LockState> by_name;
  for (int row = 0; row < PQntuples(&rows); ++row) {
    std::string name = column_text(rows, row, RowColumn::name);
    if (!name_matches(pattern, name)) continue;
    const std::string kind = column_text(rows, row, RowColumn::kind);
    const auto hold_kind = kind_of_hold_row(kind);
    // A row of another kind (written by hand, or by a later version) is nobody's hold.
    if (!hold_kind && kind != "writer" && kind != "queued") continue;
    admin::LockState& lock = by_name[name];
    lock.name = std::move(name);
    if (hold_kind)
      lock.holds.push_back(hold_of_row(rows, row, settings));
    else
      lock.waiters.push_back(
          waiter_of_row(rows, row, kind == "writer" ? HoldKind::write : HoldKind::fair, settings));
  }
  std::vector<admin::LockState> locks;
  locks.reserve(by_name.size());
  for (auto& entry : by_name) locks.push_back(std::move(entry.second));
  return locks;
}

}  // namespace

LockListing::LockListing(const PostgresSettings& settings)
    : settings_(settings),
      with_prefix_(
          listing_statement("distlock_admin_list", "left(name, length($1)) = $1", settings)),
      named_(listing_statement("distlock_admin_show", "name = $1", settings)) {}

std::vector<admin::LockState> LockListing::list(Connection& connection,
                                                std::string_view pattern) const {
  const std::string params[] = {literal_start(pattern)};
  const Result rows = connection.run(with_prefix_, params);
  return locks_of_rows(*rows, pattern, settings_);
}

std::optional<admin::LockState> LockListing::read(Connection& connection,
                                                  std::string_view name) const {
  const std::string params[] = {std::string(name)};
  const Result rows = connection.run(named_, params);
  auto locks = locks_of_rows(*rows, {}, settings_);
  if (locks.empty()) return std::nullopt;
  return std::move(locks.front());
}

admin::Hold hold_of_row(const PGresult& rows, int row, const PostgresSettings& settings) {
  admin::Hold hold;
  hold.kind =
      kind_of_hold_row(column_text(rows, row, RowColumn::kind)).value_or(HoldKind::exclusive);
  const HolderText holder = parse_holder_text(column_text(rows, row, RowColumn::holder));
  hold.holder = {column_text(rows, row, RowColumn::id), holder.host, holder.pid};
  if (const auto acquired_ms = parse_decimal<long long>(holder.last))
    hold.acquired_at =
        std::chrono::system_clock::time_point(std::chrono::milliseconds(*acquired_ms));
  if (const auto left_ms = parse_decimal<long long>(column_text(rows, row, RowColumn::left_ms)))
    hold.time_left = Millis(*left_ms);
  hold.fence = parse_decimal<std::uint64_t>(column_text(rows, row, RowColumn::fence)).value_or(0);
  hold.count = parse_decimal<unsigned>(column_text(rows, row, RowColumn::count)).value_or(0);
  // A release with hold_at_least leaves the hold to nobody ('') until it expires.
  hold.kept = column_text(rows, row, RowColumn::owner).empty();
  hold.location = row_location(rows, row, settings);
  return hold;
}

}  // namespace distlock::detail::postgres
