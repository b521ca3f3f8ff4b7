// SPDX-License-Identifier: Apache-2.0
// Where and how the etcd backend connects, as an etcd:// or etcds:// URL and the options say.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <distlock/client.h>
#include <distlock/duration.h>

#include "util/url.h"

namespace distlock::detail::etcd {

// The TLS of an etcds:// URL, in the keys of the Redis URLs (rediss://). The files are named
// here and read when the channels are made (channel_credentials.h), so that one that cannot be
// read is reported by the connect that needs it.
struct EtcdTls {
  std::optional<std::string> ca_file;           // cacert=; none: the system's CAs
  std::optional<std::string> ca_directory;      // cacertdir=
  std::optional<std::string> certificate_file;  // cert=, always with key=
  std::optional<std::string> key_file;          // key=
  // sni=: the name the server's certificate must carry, when it is not the URL's host.
  std::optional<std::string> server_name;
  bool verifies = true;  // all but insecure=true
};

struct EtcdSettings {
  std::string server;  // the URL without its password, as messages name it
  // gRPC targets, one per member: "ipv4:127.0.0.1:2379", "ipv6:[::1]:2379", "dns:///host:2379".
  std::vector<std::string> targets;
  // For etcd's authentication (Auth.Authenticate); none: the cluster has none.
  std::optional<std::string> user;
  std::optional<std::string> password;
  Millis connect_timeout{0};
  Millis command_timeout{0};
  Millis outage_limit{0};      // core/ride_through.h
  std::optional<EtcdTls> tls;  // etcds://
};

// etcd://[user:password@]host[:port][,host[:port]...] (port 2379 by default), or etcds://
// with cacert, cacertdir, cert, key, sni and insecure. Throws ConfigError for what such a URL
// cannot mean (no host, a user without a password, a path, a cert without its key).
EtcdSettings etcd_settings(const Url& url, const Options& options);

}  // namespace distlock::detail::etcd
