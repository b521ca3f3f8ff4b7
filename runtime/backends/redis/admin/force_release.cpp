// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/admin/force_release.h"

#include "admin/holder_text.h"
#include "backends/redis/admin/lock_listing.h"
#include "backends/redis/locks/redis_keys.h"
#include "backends/redis/transport/server_error.h"
#include "redis_scripts_text.h"
#include "util/decimal.h"

namespace distlock::detail::redis {
namespace {

using admin::HoldKind;

// Sent with EVAL, not loaded by every client: an operator's command is rare, and the clients'
// start-up (SCRIPT LOAD of each script) stays as it was.
const std::string& script_text() {
  static const std::string text =
      std::string(redis_scripts::k_shared_holds) + std::string(redis_scripts::k_force_release);
  return text;
}

HoldKind kind_of_key(const std::string& key, const std::string& name, bool fair) {
  if (key == writer_key(name)) return HoldKind::write;
  if (key == reader_expiries_key(name)) return HoldKind::read;
  if (key == permit_expiries_key(name)) return HoldKind::semaphore;
  return fair ? HoldKind::fair : HoldKind::exclusive;
}

admin::ReleasedHold released_hold(const redisReply& entry, const std::string& name, bool fair) {
  admin::ReleasedHold released;
  released.name = name;
  admin::Hold& hold = released.hold;
  const auto text = [&](std::size_t i) { return std::string(reply_text(*entry.element[i])); };
  const std::string key = text(0);
  hold.kind = kind_of_key(key, name, fair);
  hold.holder.acquisition_id = text(1);
  hold.fence = parse_decimal<std::uint64_t>(text(2)).value_or(0);
  const HolderText holder = parse_holder_text(text(3));
  hold.holder.host = holder.host;
  hold.holder.pid = holder.pid;
  if (!holder.last.empty())
    hold.acquired_at = std::chrono::system_clock::time_point(
        std::chrono::milliseconds(parse_decimal<long long>(holder.last).value_or(0)));
  hold.count = parse_decimal<unsigned>(text(4)).value_or(0);
  hold.location = hold.kind == HoldKind::read || hold.kind == HoldKind::semaphore
                      ? member_location(key, hold.holder.acquisition_id)
                      : key;
  return released;
}

}  // namespace

std::vector<admin::ReleasedHold> force_release(Connection& connection, const std::string& name,
                                               const std::optional<std::string>& acquisition_id,
                                               std::string_view publish) {
  const std::string keys[] = {
      lock_key(name),           writer_key(name),          reader_expiries_key(name),
      reader_holders_key(name), permit_expiries_key(name), permit_holders_key(name),
      queue_key(name)};
  const std::string channels[] = {release_channel(name), read_write_channel(name),
                                  permits_channel(name)};
  // Whether the exclusive hold was a fair lock's: its queue had waiters.
  const std::string_view queue_card[] = {"ZCARD", keys[6]};
  const Reply waiting = connection.command(queue_card);
  const bool fair = waiting->type == REDIS_REPLY_INTEGER && waiting->integer > 0;

  const std::string only_id = acquisition_id.value_or("");
  const std::string_view eval[] = {"EVAL",  script_text(), "7",         keys[0],     keys[1],
                                   keys[2], keys[3],       keys[4],     keys[5],     keys[6],
                                   only_id, publish,       channels[0], channels[1], channels[2]};
  const Reply reply = connection.command(eval);
  if (reply->type != REDIS_REPLY_ARRAY)
    throw ServerError(connection.server(),
                      "the force_release script failed: " + describe_reply(*reply));
  std::vector<admin::ReleasedHold> released;
  for (std::size_t i = 0; i < reply->elements; ++i) {
    const redisReply& entry = *reply->element[i];
    if (entry.type != REDIS_REPLY_ARRAY || entry.elements != 5)
      throw ServerError(connection.server(),
                        "unexpected reply to the force_release script: " + describe_reply(*reply));
    released.push_back(released_hold(entry, name, fair));
  }
  return released;
}

}  // namespace distlock::detail::redis
