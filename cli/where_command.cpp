// SPDX-License-Identifier: Apache-2.0
// distlock where TYPE --manifest FILE: which functions of a woven target take locks of a type,
// from the lock inventory distlock_weave() writes (<target>.distlock-locks.json; its schema is
// in docs/annotations.md, "Lock inventory").
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "command.h"

namespace distlock::cli {
namespace {

// The inventory versions this command reads.
constexpr int kInventoryVersion = 1;

nlohmann::json read_inventory(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw UsageError("", "", "cannot read the lock inventory '" + path + "'");
  nlohmann::json inventory = nlohmann::json::parse(file, nullptr, false);
  if (inventory.is_discarded() || !inventory.is_object() ||
      !inventory.value("functions", nlohmann::json()).is_array())
    throw UsageError("", "",
                     "'" + path +
                         "' is not a lock inventory (<target>.distlock-locks.json, written by "
                         "distlock_weave)");
  if (inventory.value("version", 0) != kInventoryVersion)
    throw UsageError("", "",
                     "'" + path + "' is a lock inventory of version " +
                         inventory.value("version", nlohmann::json()).dump() +
                         "; this distlock reads version " + std::to_string(kInventoryVersion));
  return inventory;
}

// A type written as a string literal is compared by its value, another by the expression.
bool takes_type(const nlohmann::json& function, const std::string& type) {
  const auto& literal = function.value("type", nlohmann::json());
  if (literal.is_string()) return literal.get<std::string>() == type;
  return function.value("type_as_written", std::string()) == type;
}

std::string keys_text(const nlohmann::json& keys) {
  std::string text;
  for (const auto& key : keys) {
    if (!text.empty()) text += ", ";
    text += key.value("parameter", std::string());
    const std::string path = key.value("path", std::string());
    if (!path.empty()) text += "." + path;
  }
  return text;
}

}  // namespace

int where_type_is_taken(const GlobalOptions& options, const WhereOptions& where_options) {
  const nlohmann::json inventory = read_inventory(where_options.manifest);
  nlohmann::json found = nlohmann::json::array();
  for (const auto& function : inventory["functions"]) {
    if (!takes_type(function, where_options.type)) continue;
    found.push_back({{"name", function.value("name", "")},
                     {"file", function.value("file", "")},
                     {"line", function.value("line", 0)},
                     {"column", function.value("column", 0)},
                     {"ttl", function.value("ttl", "")},
                     {"options", function.value("options", nlohmann::json::array())},
                     {"keys", function.value("keys", nlohmann::json::array())}});
  }
  if (options.json) {
    std::cout << nlohmann::json{{"type", where_options.type},
                                {"target", inventory.value("target", "")},
                                {"functions", found}}
                     .dump(2)
              << '\n';
  } else {
    for (const auto& function : found) {
      std::cout << function["file"].get<std::string>() << ':' << function["line"] << ':'
                << function["column"] << ": " << function["name"].get<std::string>() << " ttl "
                << function["ttl"].get<std::string>();
      const std::string keys = keys_text(function["keys"]);
      if (!keys.empty()) std::cout << " keys (" << keys << ')';
      for (const auto& option : function["options"]) std::cout << ' ' << option.get<std::string>();
      std::cout << '\n';
    }
  }
  if (found.empty()) {
    std::cerr << "distlock: no function of target '" << inventory.value("target", "")
              << "' takes a lock of type '" << where_options.type << "' (" << where_options.manifest
              << ")\n";
    return kNothingFound;
  }
  return kOk;
}

}  // namespace distlock::cli
