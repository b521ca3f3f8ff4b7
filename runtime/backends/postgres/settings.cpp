// SPDX-License-Identifier: Apache-2.0
#include "backends/postgres/settings.h"

#include <libpq-fe.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <distlock/error.h>

#include "core/client_config.h"
#include "util/decimal.h"
#include "util/url.h"

namespace distlock::detail::postgres {
namespace {

constexpr std::string_view kDistlockKeys[] = {"command_timeout", "max_connections", "outage_limit",
                                              "lock_table"};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A key or value as libpq reads it: %XX decoded (a malformed escape stays as written, for
// libpq to refuse).
std::string percent_decoded(std::string_view text) {
  std::string decoded;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 &&
        hex_digit(text[i + 2]) >= 0) {
      decoded += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      decoded += text[i];
    }
  }
  return decoded;
}

struct SplitUrl {
  std::string for_libpq;
  std::vector<std::pair<std::string, std::string>> distlock_keys;
};

SplitUrl take_out_distlock_keys(std::string_view url) {
  const auto question = url.find('?');
  if (question == std::string_view::npos) return {std::string(url), {}};
  SplitUrl split{std::string(url.substr(0, question)), {}};
  std::string kept;
  std::string_view query = url.substr(question + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const auto equals = part.find('=');
    const std::string key = percent_decoded(part.substr(0, equals));
    if (std::find(std::begin(kDistlockKeys), std::end(kDistlockKeys), key) !=
        std::end(kDistlockKeys)) {
      split.distlock_keys.emplace_back(
          key, equals == std::string_view::npos ? "" : percent_decoded(part.substr(equals + 1)));
      continue;
    }
    kept += (kept.empty() ? "" : "&") + std::string(part);
  }
  if (!kept.empty()) split.for_libpq += "?" + kept;
  return split;
}

struct ConninfoFree {
  void operator()(PQconninfoOption* options) const { PQconninfoFree(options); }
};

std::vector<std::string> comma_list(const char* text) {
  std::vector<std::string> items;
  if (text == nullptr || *text == '\0') return items;
  std::string_view rest(text);
  while (true) {
    const auto comma = rest.find(',');
    items.emplace_back(rest.substr(0, comma));
    if (comma == std::string_view::npos) return items;
    rest = rest.substr(comma + 1);
  }
}

// The URL as messages show it, from what libpq parsed: hosts, ports and database; "***@" for a
// user; no query.
Url url_for_messages(const PQconninfoOption* parsed) {
  Url url;
  url.scheme = "postgresql";
  std::vector<std::string> hosts;
  std::vector<std::string> ports;
  for (const auto* option = parsed; option->keyword != nullptr; ++option) {
    const std::string_view keyword = option->keyword;
    if (keyword == "host") hosts = comma_list(option->val);
    if (keyword == "port") ports = comma_list(option->val);
    if (keyword == "dbname" && option->val != nullptr) url.path = "/" + std::string(option->val);
    if (keyword == "user" && option->val != nullptr) url.user = option->val;
  }
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    Endpoint endpoint{hosts[i], std::nullopt};
    const std::string& port = ports.size() == hosts.size() ? ports[i]
                              : ports.size() == 1          ? ports[0]
                                                           : std::string();
    if (const auto number = parse_decimal<std::uint16_t>(port)) endpoint.port = *number;
    url.endpoints.push_back(std::move(endpoint));
  }
  return url;
}

// libpq ends the user information at its first '@' or '/', where every other URL here ends it
// at the last '@' (util/url.h): a '/' or '@' in a user name or password would have libpq take a
// piece of it for a host or a database, and show it in its messages. A '%' that starts no
// escape would be quoted by libpq's complaint. Such URLs are refused before libpq sees them.
// Returns the user information as written ("" without one).
std::string_view checked_userinfo(std::string_view url) {
  const auto userinfo = raw_userinfo(url);
  if (!userinfo) return {};
  const auto refuse = [&](const std::string& what) {
    throw ConfigError("", redacted_raw(url), "bad URL: " + what);
  };
  if (userinfo->find_first_of("/@") != std::string_view::npos)
    refuse("write '/' and '@' in a user name or password as %2F and %40");
  for (std::size_t i = 0; i < userinfo->size(); ++i) {
    if ((*userinfo)[i] == '%' && (i + 2 >= userinfo->size() || hex_digit((*userinfo)[i + 1]) < 0 ||
                                  hex_digit((*userinfo)[i + 2]) < 0))
      refuse("a '%' in the user name or password starts no %XX escape: write it as %25");
  }
  return *userinfo;
}

// What a libpq message must not show of the URL: the user information's parts, the values of
// password=, and what stands where a port would be and is no number ("admin:S3cret" may be a
// password whose '@' was forgotten: redacted_raw), each as written and decoded. Without an '@',
// that may run to the first '/': a forgotten '@' leaves a '?' or '#' of the user information
// where libpq sees a query ("u?ser:S3cret/db" quotes "ser:S3cret/db" as a bad parameter).
std::vector<std::string> secrets_of(std::string_view url, std::string_view userinfo) {
  std::vector<std::string> secrets;
  const auto add = [&](std::string_view written) {
    if (written.empty()) return;
    secrets.emplace_back(written);
    secrets.push_back(percent_decoded(written));
  };
  std::string_view hosts = url.substr(url.find("://") + 3);
  if (!userinfo.empty()) hosts = hosts.substr(userinfo.size() + 1);
  hosts = hosts.substr(0, hosts.find_first_of(userinfo.empty() ? "/" : "/?#"));
  for (const auto& item : comma_list(std::string(hosts).c_str())) {
    // The colons that may start a port, or a password whose '@' was forgotten: an IPv6
    // address's own, inside its brackets, do not.
    const std::size_t host_end = item.starts_with('[') ? std::min(item.find(']'), item.size()) : 0;
    for (const auto colon : {item.find(':', host_end), item.rfind(':')}) {
      if (colon == std::string::npos || colon < host_end) continue;
      if (!parse_decimal<std::uint16_t>(item.substr(colon + 1))) add(item.substr(colon + 1));
    }
  }
  const auto colon = userinfo.find(':');
  add(userinfo.substr(0, colon));
  if (colon != std::string_view::npos) add(userinfo.substr(colon + 1));
  for (auto at = url.find("password="); at != std::string_view::npos;
       at = url.find("password=", at + 1)) {
    const std::string_view value = url.substr(at + 9);
    add(value.substr(0, value.find('&')));
  }
  return secrets;
}

// The URL's own connect_timeout, as libpq reads it: whole seconds, 1 taken as 2, zero or less
// none at all. Nullopt when the URL sets none.
std::optional<Millis> url_connect_timeout(const PQconninfoOption* parsed, const Url& for_messages) {
  for (const auto* option = parsed; option->keyword != nullptr; ++option) {
    if (std::string_view(option->keyword) != "connect_timeout" || option->val == nullptr) continue;
    const auto seconds = parse_decimal<long long>(option->val);
    if (!seconds)
      throw ConfigError("", for_messages.redacted(),
                        "bad URL: connect_timeout must be a whole number of seconds, not '" +
                            std::string(option->val) + "'");
    if (*seconds <= 0) return Millis::zero();
    return std::chrono::seconds(std::max<long long>(2, *seconds));
  }
  return std::nullopt;
}

// A plain SQL name, as the statements write it unquoted: lower case letters, digits and '_',
// not starting with a digit, and at most 54 bytes (the fence sequence adds "_fence", the holds
// table "_holds", within PostgreSQL's 63).
bool plain_name(std::string_view name) {
  constexpr std::size_t kLongest = 54;
  if (name.empty() || name.size() > kLongest || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

std::string without_secrets(std::string text, const std::vector<std::string>& secrets) {
  const auto hide = [&](const std::string& shown, const std::string& hidden) {
    for (auto at = text.find(shown); at != std::string::npos;
         at = text.find(shown, at + hidden.size()))
      text.replace(at, shown.size(), hidden);
  };
  // libpq quotes what it cannot use; a secret of a character or two stands hidden only there,
  // where hiding it everywhere would hide letters of every word.
  constexpr std::size_t kShortest = 3;
  for (const auto& secret : secrets) {
    hide('"' + secret + '"', "\"***\"");
    if (secret.size() >= kShortest) hide(secret, "***");
  }
  return text;
}

bool is_postgres_url(std::string_view url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

PostgresSettings postgres_settings(std::string_view url, const Options& options) {
  const std::string_view userinfo = checked_userinfo(url);
  SplitUrl split = take_out_distlock_keys(url);
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, ConninfoFree> parsed(
      PQconninfoParse(split.for_libpq.c_str(), &error));
  if (!parsed) {
    std::string reason = error != nullptr ? error : "out of memory";
    PQfreemem(error);
    while (!reason.empty() && reason.back() == '\n') reason.pop_back();
    // libpq's message may quote a part of the URL, which may hold a secret.
    throw ConfigError("", std::string(url.substr(0, url.find("://") + 3)),
                      "bad URL: libpq cannot use it: " +
                          without_secrets(std::move(reason), secrets_of(url, userinfo)));
  }
  Url for_messages = url_for_messages(parsed.get());
  for_messages.query = split.distlock_keys;
  Options configured = options_from_url(
      for_messages, options, {"command_timeout", "max_connections", "outage_limit", "lock_table"});

  PostgresSettings settings;
  settings.server = for_messages.redacted();
  settings.conninfo = std::move(split.for_libpq);
  settings.secrets = secrets_of(url, userinfo);
  settings.connect_timeout =
      url_connect_timeout(parsed.get(), for_messages).value_or(configured.connect_timeout);
  settings.command_timeout = configured.command_timeout;
  settings.outage_limit = configured.outage_limit;
  settings.max_connections = configured.max_connections;
  settings.table = std::string(kDefaultLockTable);
  if (const auto table = for_messages.query_value("lock_table")) {
    const auto dot = table->find('.');
    const bool plain = dot == std::string::npos ? plain_name(*table)
                                                : plain_name(table->substr(0, dot)) &&
                                                      plain_name(table->substr(dot + 1));
    if (!plain)
      throw ConfigError("", settings.server,
                        "bad URL: query parameter 'lock_table' must be a plain SQL name (lower "
                        "case letters, digits and '_', at most 54 of them), or schema.name");
    settings.table = *table;
  }
  settings.holds_table = settings.table + "_holds";
  settings.fence_sequence = settings.table + "_fence";
  settings.channel = settings.table;
  return settings;
}

}  // namespace distlock::detail::postgres
