// SPDX-License-Identifier: Apache-2.0
// Parsing of lock service URLs:
// scheme://[user[:password]@]host[:port][,host[:port]...][/path][?k=v&...]
// The user information ends at the last '@', so a password may hold '/', ':' and '@' as they are;
// '?' and '#' in it, and '@' in a path or query, must be percent-encoded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace distlock::detail {

struct Endpoint {
  std::string host;                   // without IPv6 brackets
  std::optional<std::uint16_t> port;  // absent when the URL gives none
};

struct Url {
  std::string scheme;  // lower case: memory, redis, redis+unix, zookeeper
  std::optional<std::string> user;
  std::optional<std::string> password;
  std::vector<Endpoint>
      endpoints;     // empty for redis+unix:// and memory:// (memory://<name>: the name)
  std::string path;  // percent-decoded; "" or starting with '/'
  std::vector<std::pair<std::string, std::string>> query;  // percent-decoded, in order

  // The URL as messages show it: "***@" for all the user information, and no query, whose
  // values may be secrets; "***" for the hosts where they may be one (hosts_may_be_secret).
  std::string redacted() const;
  // An empty password ("user:@S3cret") may be the '@' of a password gone astray: the hosts
  // after it may then be the password.
  bool hosts_may_be_secret() const { return password && password->empty(); }
  // What no message may show, as the URL holds it: the password, ?password=, and the hosts
  // where they may be one.
  std::vector<std::string> secrets() const;
  // The value of a query parameter, if given.
  std::optional<std::string> query_value(std::string_view key) const;
};

// Throws ConfigError naming what is wrong and the URL as far as no secret can be in it: its
// scheme, "***@" for any user information, the hosts after it ("***" for them without an '@':
// redacted_raw) and the path; never a query value.
Url parse_url(std::string_view text);

// The user information of `text` as written, by parse_url's rule (it ends at the URL's last
// '@'), for a URL that another parser reads (libpq); nullopt without one. Throws ConfigError
// as parse_url does when where it ends cannot be told.
std::optional<std::string_view> raw_userinfo(std::string_view text);
// What a message may show of a URL that did not parse: its scheme, "***@" for any user
// information, the hosts after it, and the path; never a query. Without an '@' the hosts show
// as "***": "user:S3cret" may be a host and a port, or a password whose '@' was forgotten.
std::string redacted_raw(std::string_view text);

}  // namespace distlock::detail
