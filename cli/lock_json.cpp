#include "lock_json.h"

#include "lock_text.h"

namespace distlock::cli {
namespace {

nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json() : nlohmann::json(text);
}

}  // namespace

nlohmann::json to_json(const admin::Holder& holder) {
  return {{"acquisition_id", text_or_null(holder.acquisition_id)},
          {"host", text_or_null(holder.host)},
          {"pid", holder.pid == 0 ? nlohmann::json() : nlohmann::json(holder.pid)}};
}

nlohmann::json to_json(const admin::Hold& hold) {
  nlohmann::json json = to_json(hold.holder);
  json["kind"] = admin::to_string(hold.kind);
  json["acquired_at"] = hold.acquired_at ? nlohmann::json(utc_time(*hold.acquired_at)) : nullptr;
  json["acquired_at_ms"] =
      hold.acquired_at ? nlohmann::json(std::chrono::duration_cast<std::chrono::milliseconds>(
                                            hold.acquired_at->time_since_epoch())
                                            .count())
                       : nullptr;
  json["time_left_ms"] = hold.time_left ? nlohmann::json(hold.time_left->count()) : nullptr;
  json["fence"] = hold.fence;
  json["count"] = hold.count;
  json["kept"] = hold.kept;
  json["location"] = hold.location;
  return json;
}

nlohmann::json to_json(const admin::Waiter& waiter) {
  nlohmann::json json = to_json(waiter.holder);
  json["kind"] = admin::to_string(waiter.kind);
  json["location"] = waiter.location;
  return json;
}

nlohmann::json to_json(const admin::LockState& lock) {
  nlohmann::json holds = nlohmann::json::array();
  for (const auto& hold : lock.holds) holds.push_back(to_json(hold));
  nlohmann::json waiters = nlohmann::json::array();
  for (const auto& waiter : lock.waiters) waiters.push_back(to_json(waiter));
  return {{"name", lock.name}, {"holds", holds}, {"waiters", waiters}};
}

nlohmann::json to_json(const admin::ReleasedHold& released) {
  nlohmann::json json = to_json(released.hold);
  json["name"] = released.name;
  return json;
}

}  // namespace distlock::cli
