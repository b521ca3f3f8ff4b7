// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/admin/lock_listing.h"

#include <array>
#include <set>

#include "admin/holder_text.h"
#include "admin/lock_inspector.h"
#include "backends/redis/locks/redis_keys.h"
#include "backends/redis/transport/server_error.h"
#include "util/decimal.h"

namespace distlock::detail::redis {
namespace {

using admin::Hold;
using admin::HoldKind;
using admin::LockState;
using admin::Waiter;

// Keys a SCAN call looks at: enough to keep round trips few, small enough not to hold the
// server up.
constexpr std::string_view kScanBatch = "1000";

// What one lock's MULTI reads, in order.
enum class Read : std::size_t {
  time,
  lock_hash,
  lock_pttl,
  writer_hash,
  writer_pttl,
  readers,
  reader_holders,
  waiting_writers,
  permits,
  permit_holders,
  queue,
  queue_expiries,
  read_count,
};

struct LockKeys {
  std::array<std::string, 9> keys;
};

LockKeys keys_of(const std::string& name) {
  return {{lock_key(name), writer_key(name), reader_expiries_key(name), reader_holders_key(name),
           waiting_writers_key(name), permit_expiries_key(name), permit_holders_key(name),
           queue_key(name), queue_expiries_key(name)}};
}

// Appends the lock's MULTI ... EXEC; its reply is the last of read_count + 2.
void append_reads(Connection& connection, const LockKeys& lock) {
  const auto& [hash, writer, reader_set, reader_hash, writers, permit_set, permit_hash, queue_set,
               queue_expiry_set] = lock.keys;
  const std::string_view multi[] = {"MULTI"};
  connection.append(multi);
  const std::string_view time_command[] = {"TIME"};
  connection.append(time_command);
  const auto hgetall = [&](const std::string& key) {
    const std::string_view command[] = {"HGETALL", key};
    connection.append(command);
  };
  const auto pttl = [&](const std::string& key) {
    const std::string_view command[] = {"PTTL", key};
    connection.append(command);
  };
  const auto zrange = [&](const std::string& key) {
    const std::string_view command[] = {"ZRANGE", key, "0", "-1", "WITHSCORES"};
    connection.append(command);
  };
  hgetall(hash);
  pttl(hash);
  hgetall(writer);
  pttl(writer);
  zrange(reader_set);
  hgetall(reader_hash);
  zrange(writers);
  zrange(permit_set);
  hgetall(permit_hash);
  zrange(queue_set);
  zrange(queue_expiry_set);
  const std::string_view exec[] = {"EXEC"};
  connection.append(exec);
}

// A field the scripts wrote as a number; 0 if someone wrote something else there by hand.
long long integer_of(std::string_view text) { return parse_decimal<long long>(text).value_or(0); }

std::uint64_t fence_of(std::string_view text) {
  return parse_decimal<std::uint64_t>(text).value_or(0);
}

// Pairs of a flat array reply (HGETALL's field-value, ZRANGE WITHSCORES's member-score).
std::vector<std::pair<std::string, std::string>> pairs_of(const redisReply& reply) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (reply.type != REDIS_REPLY_ARRAY) return pairs;
  for (std::size_t i = 0; i + 1 < reply.elements; i += 2)
    pairs.emplace_back(reply_text(*reply.element[i]), reply_text(*reply.element[i + 1]));
  return pairs;
}

std::string field(const std::vector<std::pair<std::string, std::string>>& hash,
                  std::string_view name) {
  for (const auto& [key, value] : hash)
    if (key == name) return value;
  return {};
}

bool has_field(const std::vector<std::pair<std::string, std::string>>& hash,
               std::string_view name) {
  for (const auto& entry : hash)
    if (entry.first == name) return true;
  return false;
}

std::chrono::system_clock::time_point from_epoch_ms(long long ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

// "<host> <pid> <acquired_at ms>" into the hold.
void read_holder(Hold& hold, std::string_view text) {
  const HolderText holder = parse_holder_text(text);
  hold.holder.host = holder.host;
  hold.holder.pid = holder.pid;
  if (!holder.last.empty()) hold.acquired_at = from_epoch_ms(integer_of(holder.last));
}

// An owner's hash (the exclusive lock, a writer), if it is held.
std::optional<Hold> owner_hold(const redisReply& hash_reply, const redisReply& pttl_reply,
                               HoldKind kind, const std::string& key) {
  const auto hash = pairs_of(hash_reply);
  if (!has_field(hash, "owner")) return std::nullopt;
  Hold hold;
  hold.kind = kind;
  hold.holder.acquisition_id = field(hash, "id");
  read_holder(hold, field(hash, "holder"));
  hold.fence = fence_of(field(hash, "fence"));
  hold.count = static_cast<unsigned>(integer_of(field(hash, "count")));
  hold.kept = field(hash, "owner").empty();
  if (pttl_reply.type == REDIS_REPLY_INTEGER && pttl_reply.integer >= 0)
    hold.time_left = Millis(pttl_reply.integer);
  hold.location = key;
  return hold;
}

// A reader's or a permit's holds that have not expired.
void add_shared_holds(std::vector<Hold>& holds, const redisReply& expiries_reply,
                      const redisReply& holders_reply, HoldKind kind, const std::string& key,
                      long long now_ms) {
  const auto holders = pairs_of(holders_reply);
  for (const auto& [id, expiry] : pairs_of(expiries_reply)) {
    const long long expires_at = integer_of(expiry);
    if (expires_at <= now_ms) continue;
    Hold hold;
    hold.kind = kind;
    hold.holder.acquisition_id = id;
    const std::string held = field(holders, id);  // "<fence> <host> <pid> <acquired_at>"
    const auto space = held.find(' ');
    hold.fence = fence_of(held.substr(0, space));
    if (space != std::string::npos) read_holder(hold, std::string_view(held).substr(space + 1));
    hold.time_left = Millis(expires_at - now_ms);
    hold.location = member_location(key, id);
    holds.push_back(std::move(hold));
  }
}

std::optional<LockState> lock_state(const std::string& name, const LockKeys& lock,
                                    const redisReply& exec) {
  if (exec.type != REDIS_REPLY_ARRAY || exec.elements != static_cast<std::size_t>(Read::read_count))
    return std::nullopt;
  const auto part = [&](Read read) -> const redisReply& {
    return *exec.element[static_cast<std::size_t>(read)];
  };
  const redisReply& time_reply = part(Read::time);
  long long now_ms = 0;
  if (time_reply.type == REDIS_REPLY_ARRAY && time_reply.elements == 2)
    now_ms = integer_of(reply_text(*time_reply.element[0])) * 1000 +
             integer_of(reply_text(*time_reply.element[1])) / 1000;
  const auto& keys = lock.keys;

  LockState state;
  state.name = name;
  const auto queue_expiries = pairs_of(part(Read::queue_expiries));
  for (const auto& [id, joined] : pairs_of(part(Read::queue))) {
    (void)joined;  // ZRANGE has them in order of joining already
    if (integer_of(field(queue_expiries, id)) <= now_ms) continue;
    state.waiters.push_back(Waiter{HoldKind::fair, {id, {}, 0}, member_location(keys[7], id)});
  }
  // A fair lock's hash is the exclusive lock's: it is known for fair only while someone waits.
  const HoldKind exclusive_kind = state.waiters.empty() ? HoldKind::exclusive : HoldKind::fair;
  if (auto hold = owner_hold(part(Read::lock_hash), part(Read::lock_pttl), exclusive_kind, keys[0]))
    state.holds.push_back(std::move(*hold));
  if (auto hold =
          owner_hold(part(Read::writer_hash), part(Read::writer_pttl), HoldKind::write, keys[1]))
    state.holds.push_back(std::move(*hold));
  add_shared_holds(state.holds, part(Read::readers), part(Read::reader_holders), HoldKind::read,
                   keys[2], now_ms);
  add_shared_holds(state.holds, part(Read::permits), part(Read::permit_holders),
                   HoldKind::semaphore, keys[5], now_ms);
  for (const auto& [id, expiry] : pairs_of(part(Read::waiting_writers)))
    if (integer_of(expiry) > now_ms)
      state.waiters.push_back(Waiter{HoldKind::write, {id, {}, 0}, member_location(keys[4], id)});
  if (state.holds.empty() && state.waiters.empty()) return std::nullopt;
  return state;
}

}  // namespace

std::string member_location(std::string_view key, std::string_view member) {
  std::string location(key);
  location += ' ';
  location += member;
  return location;
}

std::string lock_name_of_key(std::string_view key) {
  constexpr std::string_view prefix = "distlock:{";
  if (!key.starts_with(prefix)) return {};
  // Names are escaped: never a brace inside.
  const auto close = key.find('}', prefix.size());
  if (close == std::string_view::npos) return {};
  return std::string(key.substr(prefix.size(), close - prefix.size()));
}

std::vector<std::string> scan_lock_names(Connection& connection, std::string_view pattern) {
  // The server narrows by the pattern too; the glob is applied again to the name, which a `*`
  // in MATCH could overrun into the key's suffix.
  const std::string match = "distlock:{" + std::string(pattern.empty() ? "*" : pattern) + "}*";
  std::set<std::string> names;
  std::string cursor = "0";
  do {
    const std::string_view scan[] = {"SCAN", cursor, "MATCH", match, "COUNT", kScanBatch};
    const Reply reply = connection.command(scan);
    if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 ||
        reply->element[1]->type != REDIS_REPLY_ARRAY)
      throw ServerError(connection.server(), "unexpected reply to SCAN: " + describe_reply(*reply));
    cursor = std::string(reply_text(*reply->element[0]));
    const redisReply& keys = *reply->element[1];
    for (std::size_t i = 0; i < keys.elements; ++i) {
      std::string name = lock_name_of_key(reply_text(*keys.element[i]));
      if (!name.empty() && name_matches(pattern, name)) names.insert(std::move(name));
    }
  } while (cursor != "0");
  return {names.begin(), names.end()};
}

std::vector<LockState> read_locks(Connection& connection, const std::vector<std::string>& names) {
  std::vector<LockKeys> keys;
  keys.reserve(names.size());
  for (const auto& name : names) {
    keys.push_back(keys_of(name));
    append_reads(connection, keys.back());
  }
  std::vector<LockState> locks;
  for (std::size_t i = 0; i < names.size(); ++i) {
    // MULTI's OK and each command's QUEUED come before EXEC's reply.
    for (std::size_t queued = 0; queued < static_cast<std::size_t>(Read::read_count) + 1; ++queued)
      (void)connection.read_reply();
    const Reply exec = connection.read_reply();
    if (is_error(*exec))
      throw ServerError(connection.server(),
                        "reading the lock '" + names[i] + "' failed: " + describe_reply(*exec));
    if (auto state = lock_state(names[i], keys[i], *exec)) locks.push_back(std::move(*state));
  }
  return locks;
}

}  // namespace distlock::detail::redis
