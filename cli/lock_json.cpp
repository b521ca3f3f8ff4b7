// SPDX-License-Identifier: Apache-2.0
#include "lock_json.h"

#include <nlohmann/json.hpp>

#include "lock_text.h"

namespace distlock::cli {
namespace {

nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json() : nlohmann::json(text);
}

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

nlohmann::json to_json(const admin::ServerFacts& facts) {
  return {{"server", facts.server},
          {"kind", facts.kind},
          {"version", text_or_null(facts.version)},
          {"maxmemory", facts.maxmemory ? nlohmann::json(*facts.maxmemory) : nlohmann::json()},
          {"maxmemory_policy", text_or_null(facts.maxmemory_policy)},
          {"eviction", admin::to_string(facts.eviction)},
          {"reason", facts.reason}};
}

nlohmann::json event_line(const char* event, const std::string& name, nlohmann::json details) {
  details["event"] = event;
  details["name"] = name;
  details["time"] = utc_time(std::chrono::system_clock::now());
  return details;
}

}  // namespace

std::string locks_document(const std::string& server, const std::vector<admin::LockState>& locks) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& lock : locks) array.push_back(to_json(lock));
  return nlohmann::json{{"server", server}, {"locks", array}}.dump(2);
}

std::string lock_document(const std::string& server, const std::optional<admin::LockState>& lock) {
  return nlohmann::json{{"server", server}, {"lock", lock ? to_json(*lock) : nlohmann::json()}}
      .dump(2);
}

std::string leader_document(const std::string& server, const std::string& election,
                            const std::optional<admin::LockState>& lock) {
  const bool led = lock && !lock->holds.empty();
  return nlohmann::json{{"server", server},
                        {"election", election},
                        {"leader", led ? to_json(lock->holds.front()) : nlohmann::json()},
                        {"campaigners_waiting", lock ? lock->waiters.size() : 0}}
      .dump();
}

std::string released_document(const std::string& server, const std::string& name,
                              const std::vector<admin::ReleasedHold>& released) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& hold : released) array.push_back(to_json(hold));
  return nlohmann::json{{"server", server}, {"name", name}, {"released", array}}.dump(2);
}

std::string servers_document(const std::vector<admin::ServerFacts>& servers) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& facts : servers) array.push_back(to_json(facts));
  return nlohmann::json{{"servers", array}}.dump(2);
}

std::string hold_event_line(const char* event, const std::string& name, const admin::Hold& hold) {
  return event_line(event, name, to_json(hold)).dump();
}

std::string waiter_event_line(const char* event, const std::string& name,
                              const admin::Waiter& waiter) {
  return event_line(event, name, to_json(waiter)).dump();
}

}  // namespace distlock::cli
