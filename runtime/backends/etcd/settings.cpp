// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/settings.h"

#include <arpa/inet.h>

#include <cstdint>

#include <distlock/error.h>

#include "backends/url_schemes.h"

namespace distlock::detail::etcd {
namespace {

constexpr std::uint16_t kDefaultEtcdPort = 2379;

[[noreturn]] void bad_etcd_url(const Url& url, const std::string& why) {
  throw ConfigError("", url.redacted(), "bad URL: " + why);
}

[[noreturn]] void bad_etcd_tls(const Url& url, const std::string& why) {
  throw ConfigError("", url.redacted(), "TLS: " + why);
}

// A key naming a file or a name: given empty, it names none, which is a mistake, not a default.
std::optional<std::string> tls_setting(const Url& url, std::string_view key) {
  std::optional<std::string> value = url.query_value(key);
  if (value && value->empty()) bad_etcd_tls(url, std::string(key) + "= names nothing");
  return value;
}

EtcdTls etcd_tls(const Url& url) {
  EtcdTls tls;
  tls.ca_file = tls_setting(url, "cacert");
  tls.ca_directory = tls_setting(url, "cacertdir");
  tls.certificate_file = tls_setting(url, "cert");
  tls.key_file = tls_setting(url, "key");
  tls.server_name = tls_setting(url, "sni");
  if (tls.certificate_file.has_value() != tls.key_file.has_value())
    bad_etcd_tls(url, tls.certificate_file
                          ? "cert= without key=: a client certificate needs its key"
                          : "key= without cert=: a client key needs its certificate");
  tls.verifies = !tls_insecure(url);
  return tls;
}

// gRPC's own resolver names: an address literal needs no lookup; a name is looked up by DNS.
std::string target_of(const Endpoint& endpoint) {
  const std::string port = std::to_string(endpoint.port.value_or(kDefaultEtcdPort));
  in_addr v4{};
  if (inet_pton(AF_INET, endpoint.host.c_str(), &v4) == 1)
    return "ipv4:" + endpoint.host + ":" + port;
  in6_addr v6{};
  if (inet_pton(AF_INET6, endpoint.host.c_str(), &v6) == 1)
    return "ipv6:[" + endpoint.host + "]:" + port;
  return "dns:///" + endpoint.host + ":" + port;
}

}  // namespace

EtcdSettings etcd_settings(const Url& url, const Options& options) {
  EtcdSettings settings;
  settings.server = url.redacted();
  settings.connect_timeout = options.connect_timeout;
  settings.command_timeout = options.command_timeout;
  settings.outage_limit = options.outage_limit;
  const std::string scheme = url.scheme + "://";
  if (url.endpoints.empty())
    bad_etcd_url(url, scheme + " needs at least one member, such as " + scheme + "127.0.0.1:2379");
  if (!url.path.empty() && url.path != "/")
    bad_etcd_url(url, "an " + scheme + " URL has no path: locks live under /distlock; remove '" +
                          url.path + "'");
  if (url.user || url.password) {
    if (!url.user || url.user->empty() || !url.password)
      bad_etcd_url(url, "etcd's authentication needs both a user and a password (" + scheme +
                            "user:password@host:2379)");
    settings.user = url.user;
    settings.password = url.password;
  }
  if (url.scheme == "etcds") settings.tls = etcd_tls(url);
  for (const auto& endpoint : url.endpoints) settings.targets.push_back(target_of(endpoint));
  return settings;
}

}  // namespace distlock::detail::etcd
