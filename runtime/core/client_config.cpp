// SPDX-License-Identifier: Apache-2.0
#include "core/client_config.h"

#include <algorithm>

#include <distlock/error.h>

#include "util/decimal.h"

namespace distlock::detail {
namespace {

// Names the key and what is wrong with its value, never the value: it may be a secret.
[[noreturn]] void bad_parameter(const Url& url, std::string_view key, const std::string& why) {
  throw ConfigError("", url.redacted(),
                    "bad URL: query parameter '" + std::string(key) + "' " + why);
}

bool is_plain_name(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

Millis parse_duration(const Url& url, std::string_view key, const std::string& value) {
  try {
    return DurationArg(std::string_view(value)).value();
  } catch (const ConfigError&) {
    bad_parameter(url, key, "is not a duration such as 500ms or 3s");
  }
}

Millis parse_timeout(const Url& url, std::string_view key, const std::string& value) {
  const Millis timeout = parse_duration(url, key, value);
  if (timeout <= Millis::zero()) bad_parameter(url, key, "must be positive");
  return timeout;
}

unsigned parse_count(const Url& url, std::string_view key, const std::string& value) {
  const auto count = parse_decimal<unsigned>(value);
  if (!count || *count == 0) bad_parameter(url, key, "must be a positive whole number");
  return *count;
}

}  // namespace

Options options_from_url(const Url& url, Options options, std::span<const std::string_view> known) {
  for (const auto& [key, value] : url.query) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      if (key == "password")
        bad_parameter(url, key,
                      "is unknown: a password goes in the user information, "
                      "scheme://user:password@host (or scheme://:password@host), with '?' and "
                      "'#' percent-encoded");
      std::string list;
      for (const auto name : known) list += (list.empty() ? "" : ", ") + std::string(name);
      // A key that is no name is a piece of something else, a password's among them (a '?'
      // where the '@' belonged): it is not quoted.
      if (!is_plain_name(key))
        throw ConfigError("", url.redacted(),
                          "bad URL: a query parameter (not shown: it is no name, and may hold a "
                          "secret) is unknown here; known: " +
                              list);
      bad_parameter(url, key, "is unknown here; known: " + list);
    }
    if (key == "connect_timeout") {
      options.connect_timeout = parse_timeout(url, key, value);
    } else if (key == "command_timeout") {
      options.command_timeout = parse_timeout(url, key, value);
    } else if (key == "outage_limit") {
      // 0s: fail at once, as before outages were ridden through.
      options.outage_limit = parse_duration(url, key, value);
      if (options.outage_limit < Millis::zero()) bad_parameter(url, key, "must not be negative");
    } else if (key == "session_timeout") {
      options.session_timeout = parse_timeout(url, key, value);
    } else if (key == "max_connections") {
      options.max_connections = parse_count(url, key, value);
    }
  }
  return options;
}

}  // namespace distlock::detail
