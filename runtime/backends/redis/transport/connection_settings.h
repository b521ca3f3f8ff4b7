// SPDX-License-Identifier: Apache-2.0
// Where and how the Redis backend connects, as a redis://, redis+unix:// or
// redis+sentinel:// URL (or its TLS form, rediss://, rediss+sentinel://) and the options say.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <distlock/client.h>
#include <distlock/duration.h>

#include "util/url.h"

namespace distlock::detail::redis {

class TlsContext;

// One Redis server (or sentinel) to connect to.
struct Address {
  std::string host;  // TCP; empty when connecting to a unix socket
  std::uint16_t port = 6379;
  std::string socket_path;  // unix socket; empty for TCP

  // "host:port" or the socket path, as messages show it.
  std::string describe() const;
  bool operator==(const Address&) const = default;
};

struct ConnectionSettings {
  std::string server;  // the URL without its password, as messages name it
  // The server, for redis:// and redis+unix://. For redis+sentinel:// the master is wherever
  // the sentinels say (MasterLocator), and this is left empty.
  Address address;
  std::vector<Address> sentinels;  // redis+sentinel:// only
  std::string master_name;         // redis+sentinel:// only
  // rediss:// (and its Sentinel, Cluster and Redlock forms): every connection, to the servers
  // and to the sentinels, starts a TLS session from this context. None: in the clear.
  std::shared_ptr<const TlsContext> tls;
  std::optional<std::string> user;
  std::optional<std::string> password;
  unsigned db = 0;
  Millis connect_timeout{0};
  Millis command_timeout{0};
  unsigned max_connections = 1;
  // Replicas that must acknowledge a grant or a renewal (WAIT) before it counts.
  unsigned min_replicas = 0;
  // How long an acquisition rides through the server being unreachable or not serving yet
  // (outage.h); zero: not at all (a Cluster's masters, whose backend rides for them).
  Millis outage_limit{0};
  // How long a read looks for a reply before its thread sleeps (Stream::read_some); zero: it
  // sleeps at once.
  std::chrono::microseconds reply_spin{100};
  // A Redis Cluster node: release notifications go by sharded pub/sub (SPUBLISH,
  // SSUBSCRIBE), to the lock's slot only, rather than to every node.
  bool sharded_pubsub = false;
  // How long WAIT may wait for them: half the command timeout, so that its reply is read
  // before the read's deadline.
  Millis replica_timeout() const { return command_timeout / 2; }
  bool sentinel() const { return !sentinels.empty(); }
};

// redis://[user:password@]host[:port][/db], redis+unix:///socket/path[?db=N] and
// redis+sentinel://host:port[,host:port...]/master-name[?db=N]; each may add min_replicas=N.
// rediss:// and rediss+sentinel:// are the same over TLS, with its keys (tls_context.h).
// Throws ConfigError for what such a URL cannot mean (several hosts for redis://, a database
// that is no number, a sentinel URL without a master name, a TLS file that cannot be read).
ConnectionSettings connection_settings(const Url& url, const Options& options);

}  // namespace distlock::detail::redis
