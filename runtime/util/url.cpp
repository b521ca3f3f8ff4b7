// SPDX-License-Identifier: Apache-2.0
#include "util/url.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <distlock/error.h>

#include "util/decimal.h"

namespace distlock::detail {
namespace {

bool is_scheme(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
  });
}

// The '@' that ends the user information: the last one of the URL, so that a password may hold
// any character but '?' and '#' unescaped ('/' and '@' included: generated secrets have them).
// An '@' in a path or a query value must therefore be written %40.
std::string_view::size_type userinfo_end(std::string_view after_scheme) {
  return after_scheme.rfind('@');
}

// When the text before the last '@' has a '?' or '#', or starts a path, it is either user
// information with a '?' or '#' in it or a query or path holding a '@': which one cannot be
// told, and either guess could take a piece of a password for a host or a query value.
bool userinfo_is_unsure(std::string_view userinfo) {
  return userinfo.starts_with('/') || userinfo.find_first_of("?#") != std::string_view::npos;
}

// The hosts of an authority that did not parse, each port that is not a number as "***": it
// may be a password, as in "user:S3cret" with its '@' forgotten after an earlier one.
std::string redacted_hosts(std::string_view hosts) {
  std::string shown;
  while (true) {
    const auto comma = hosts.find(',');
    const std::string_view item = hosts.substr(0, comma);
    const auto port_colon = item.starts_with('[') ? item.find(':', item.find(']')) : item.find(':');
    shown += item.substr(0, port_colon);
    if (port_colon != std::string_view::npos) {
      const std::string_view port = item.substr(port_colon + 1);
      shown += ':';
      shown += std::all_of(port.begin(), port.end(),
                           [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })
                   ? std::string(port)
                   : std::string("***");
    }
    if (comma == std::string_view::npos) return shown;
    shown += ',';
    hosts = hosts.substr(comma + 1);
  }
}

constexpr std::string_view kUnsureUserinfo =
    "cannot tell where the user information ends: write '?' and '#' in a user name or password "
    "as %3F and %23, and '@' in a path or query as %40";

// What a message may show of a URL that did not parse: the scheme, "***@" for all the user
// information, then the hosts and path, never the query. With no "scheme://" in front nothing
// tells a URL from a secret pasted in its place, so nothing shows; when the user information
// cannot be told apart (userinfo_is_unsure), nothing after the scheme shows. Without an '@' the
// hosts show as "***": "user:S3cret" may be a host and a port or the user information of a URL
// whose '@' and hosts were forgotten, and as it did not parse, nothing says it is a host list.
std::string redact_raw(std::string_view text) {
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos || !is_scheme(text.substr(0, scheme_end))) return "";
  std::string shown(text.substr(0, scheme_end + 3));
  std::string_view rest = text.substr(scheme_end + 3);
  const auto at = userinfo_end(rest);
  if (at != std::string_view::npos) {
    if (userinfo_is_unsure(rest.substr(0, at))) return shown + "***";
    shown += "***@";
    rest = rest.substr(at + 1);
  }
  const auto authority_end = std::min(rest.find_first_of("/?#"), rest.size());
  if (at != std::string_view::npos) {
    shown += redacted_hosts(rest.substr(0, authority_end));
  } else if (authority_end > 0) {
    shown += "***";
  }
  rest = rest.substr(authority_end);
  shown += rest.substr(0, rest.find_first_of("?#"));
  return shown;
}

class UrlParser {
 public:
  explicit UrlParser(std::string_view text) : text_(text) {}

  Url parse() {
    const auto scheme_end = text_.find("://");
    if (scheme_end == std::string_view::npos || scheme_end == 0)
      fail("expected scheme://..., such as redis://127.0.0.1:6379 or memory://");
    url_.scheme.assign(text_.substr(0, scheme_end));
    for (char& c : url_.scheme) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.')
        fail("the scheme contains '" + std::string(1, c) + "'");
    }

    std::string_view rest = text_.substr(scheme_end + 3);
    const auto at = userinfo_end(rest);
    if (at != std::string_view::npos) {
      if (userinfo_is_unsure(rest.substr(0, at))) fail(std::string(kUnsureUserinfo));
      parse_userinfo(rest.substr(0, at));
      rest = rest.substr(at + 1);
    }
    const auto query_begin = rest.find('?');
    if (query_begin != std::string_view::npos) {
      parse_query(rest.substr(query_begin + 1));
      rest = rest.substr(0, query_begin);
    }
    const auto path_begin = rest.find('/');
    if (path_begin != std::string_view::npos) {
      url_.path = decode(rest.substr(path_begin), "path");
      rest = rest.substr(0, path_begin);
    }
    parse_endpoints(rest);
    return std::move(url_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError("", redact_raw(text_), "bad URL: " + what);
  }

  std::string decode(std::string_view part, const char* where) const {
    std::string decoded;
    decoded.reserve(part.size());
    for (std::size_t i = 0; i < part.size(); ++i) {
      if (part[i] != '%') {
        decoded += part[i];
        continue;
      }
      unsigned value = 0;
      if (i + 2 >= part.size()) fail(std::string("truncated %-escape in the ") + where);
      const auto [end, error] =
          std::from_chars(part.data() + i + 1, part.data() + i + 3, value, 16);
      if (error != std::errc() || end != part.data() + i + 3)
        fail(std::string("bad %-escape in the ") + where);
      decoded += static_cast<char>(value);
      i += 2;
    }
    return decoded;
  }

  void parse_userinfo(std::string_view userinfo) {
    const auto colon = userinfo.find(':');
    if (colon == std::string_view::npos) {
      url_.user = decode(userinfo, "user name");
      return;
    }
    if (colon > 0) url_.user = decode(userinfo.substr(0, colon), "user name");
    url_.password = decode(userinfo.substr(colon + 1), "password");
  }

  void parse_endpoints(std::string_view hosts) {
    if (hosts.empty()) return;
    std::size_t begin = 0;
    while (begin <= hosts.size()) {
      const auto comma = std::min(hosts.find(',', begin), hosts.size());
      url_.endpoints.push_back(parse_endpoint(hosts.substr(begin, comma - begin)));
      begin = comma + 1;
    }
  }

  Endpoint parse_endpoint(std::string_view text) const {
    Endpoint endpoint;
    std::string_view port;
    if (text.starts_with('[')) {
      const auto close = text.find(']');
      if (close == std::string_view::npos) fail("unclosed '[' in an IPv6 host");
      endpoint.host.assign(text.substr(1, close - 1));
      const auto after = text.substr(close + 1);
      if (!after.empty()) {
        if (after[0] != ':') fail("expected ':' after ']'");
        port = after.substr(1);
        if (port.empty()) fail("empty port");
      }
    } else {
      const auto colon = text.find(':');
      endpoint.host.assign(text.substr(0, colon));
      if (colon != std::string_view::npos) {
        port = text.substr(colon + 1);
        if (port.empty()) fail("empty port");
      }
    }
    if (endpoint.host.empty()) fail("empty host");
    if (!port.empty()) {
      const auto value = parse_port(port);
      // Not quoted: without an '@' before it, it may be a password (redact_raw).
      if (!value) fail("a port is not a number from 1 to 65535");
      endpoint.port = *value;
    }
    return endpoint;
  }

  // An item that is not key=value is named by its place: it may be a password.
  void parse_query(std::string_view query) {
    std::size_t begin = 0;
    std::size_t place = 0;
    while (begin < query.size()) {
      const auto amp = std::min(query.find('&', begin), query.size());
      const auto item = query.substr(begin, amp - begin);
      begin = amp + 1;
      if (item.empty()) continue;
      ++place;
      const auto eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0)
        fail("query parameter " + std::to_string(place) + " is not key=value");
      url_.query.emplace_back(decode(item.substr(0, eq), "query"),
                              decode(item.substr(eq + 1), "query"));
    }
  }

  std::string_view text_;
  Url url_;
};

}  // namespace

std::string Url::redacted() const {
  std::string text = scheme + "://";
  // Not even the user name shows: "p4ss:w0rd@" may be a password written without its ':'.
  if (user || password) text += "***@";
  if (hosts_may_be_secret()) {
    if (!endpoints.empty()) text += "***";
    return text + path;
  }
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    if (i > 0) text += ',';
    const bool ipv6 = endpoints[i].host.find(':') != std::string::npos;
    if (ipv6) text += '[';
    text += endpoints[i].host;
    if (ipv6) text += ']';
    if (endpoints[i].port) {
      text += ':';
      text += std::to_string(*endpoints[i].port);
    }
  }
  text += path;
  return text;
}

std::vector<std::string> Url::secrets() const {
  std::vector<std::string> secret;
  if (password) secret.push_back(*password);
  if (const auto query_password = query_value("password")) secret.push_back(*query_password);
  if (hosts_may_be_secret())
    for (const Endpoint& endpoint : endpoints) secret.push_back(endpoint.host);
  return secret;
}

std::optional<std::string> Url::query_value(std::string_view key) const {
  for (const auto& [name, value] : query)
    if (name == key) return value;
  return std::nullopt;
}

Url parse_url(std::string_view text) { return UrlParser(text).parse(); }

std::optional<std::string_view> raw_userinfo(std::string_view text) {
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) return std::nullopt;
  const std::string_view rest = text.substr(scheme_end + 3);
  const auto at = userinfo_end(rest);
  if (at == std::string_view::npos) return std::nullopt;
  if (userinfo_is_unsure(rest.substr(0, at)))
    throw ConfigError("", redact_raw(text), "bad URL: " + std::string(kUnsureUserinfo));
  return rest.substr(0, at);
}

std::string redacted_raw(std::string_view text) { return redact_raw(text); }

}  // namespace distlock::detail
