// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/settings.h"

#include <algorithm>
#include <climits>

#include <distlock/error.h>

namespace distlock::detail::zookeeper {
namespace {

constexpr std::uint16_t kDefaultPort = 2181;

[[noreturn]] void bad_url(const Url& url, const std::string& why) {
  throw ConfigError("", url.redacted(), "bad URL: " + why);
}

// "/app/locks" as ZooKeeper takes a chroot: no empty, "." or ".." component, no control
// characters. A trailing '/' is dropped; "/" alone means none.
std::string chroot_of(const Url& url) {
  std::string path = url.path;
  if (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path.empty() || path == "/") return "";
  std::size_t begin = 1;
  while (begin <= path.size()) {
    const auto end = std::min(path.find('/', begin), path.size());
    const std::string_view part = std::string_view(path).substr(begin, end - begin);
    if (part.empty() || part == "." || part == "..")
      bad_url(url, "the chroot '" + path + "' has an empty, '.' or '..' component");
    for (const char c : part) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte == 0x7f)
        bad_url(url, "the chroot '" + path + "' contains a control character");
    }
    begin = end + 1;
  }
  return path;
}

}  // namespace

ZooKeeperSettings zookeeper_settings(const Url& url, const Options& options) {
  ZooKeeperSettings settings;
  settings.server = url.redacted();
  settings.secrets = url.secrets();
  settings.connect_timeout = options.connect_timeout;
  settings.command_timeout = options.command_timeout;
  settings.outage_limit = options.outage_limit;
  settings.session_timeout = options.session_timeout;
  if (settings.session_timeout.count() > INT_MAX)
    bad_url(url, "session_timeout is too long for ZooKeeper");

  if (url.endpoints.empty())
    bad_url(url, "zookeeper:// needs at least one host, such as zookeeper://127.0.0.1:2181");
  if (url.user || url.password) {
    if (!url.user || url.user->empty() || !url.password)
      bad_url(url,
              "ZooKeeper's digest authentication needs both a user and a password "
              "(zookeeper://user:password@host:2181)");
    settings.credentials = *url.user + ":" + *url.password;
  }

  // The C client splits host and port at the last ':', so IPv6 hosts go without brackets.
  for (const auto& endpoint : url.endpoints) {
    if (!settings.connect_string.empty()) settings.connect_string += ',';
    settings.connect_string += endpoint.host;
    settings.connect_string += ':';
    settings.connect_string += std::to_string(endpoint.port.value_or(kDefaultPort));
  }
  settings.chroot = chroot_of(url);
  settings.connect_string += settings.chroot;
  return settings;
}

}  // namespace distlock::detail::zookeeper
