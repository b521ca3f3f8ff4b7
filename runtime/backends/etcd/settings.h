// SPDX-License-Identifier: Apache-2.0
// Where and how the etcd backend connects, as an etcd:// URL and the options say.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <distlock/client.h>
#include <distlock/duration.h>

#include "util/url.h"

namespace distlock::detail::etcd {

struct EtcdSettings {
  std::string server;  // the URL without its password, as messages name it
  // gRPC targets, one per member: "ipv4:127.0.0.1:2379", "ipv6:[::1]:2379", "dns:///host:2379".
  std::vector<std::string> targets;
  // For etcd's authentication (Auth.Authenticate); none: the cluster has none.
  std::optional<std::string> user;
  std::optional<std::string> password;
  Millis connect_timeout{0};
  Millis command_timeout{0};
};

// etcd://[user:password@]host[:port][,host[:port]...] (port 2379 by default). Throws
// ConfigError for what such a URL cannot mean (no host, a user without a password, a path).
EtcdSettings etcd_settings(const Url& url, const Options& options);

}  // namespace distlock::detail::etcd
