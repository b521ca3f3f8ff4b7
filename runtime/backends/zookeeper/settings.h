// SPDX-License-Identifier: Apache-2.0
// Where and how the ZooKeeper backend connects, as a zookeeper:// URL and the options say.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <distlock/client.h>
#include <distlock/duration.h>

#include "util/url.h"

namespace distlock::detail::zookeeper {

struct ZooKeeperSettings {
  std::string server;          // the URL without its password, as messages name it
  std::string connect_string;  // for zookeeper_init: "h1:2181,h2:2181/chroot"
  std::string chroot;          // "" or "/app"
  // "user:password" for the digest scheme; none: no authentication, open ACLs.
  std::optional<std::string> credentials;
  // What the client's own log lines must not show (Url::secrets).
  std::vector<std::string> secrets;
  Millis connect_timeout{0};
  Millis command_timeout{0};
  Millis outage_limit{0};  // core/ride_through.h
  Millis session_timeout{0};
};

// zookeeper://[user:password@]host[:port][,host[:port]...][/chroot]. Throws ConfigError for
// what such a URL cannot mean (no host, a user without a password, a bad chroot).
ZooKeeperSettings zookeeper_settings(const Url& url, const Options& options);

}  // namespace distlock::detail::zookeeper
