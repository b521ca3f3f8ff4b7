// SPDX-License-Identifier: Apache-2.0
// zookeeper://[user:password@]host1:2181,host2:2181[/chroot][?session_timeout=10s&...]: locks
// as ephemeral sequential nodes, named and ordered as Apache Curator's InterProcessMutex and
// InterProcessReadWriteLock name and order them. One ZooKeeper session per client; a lease
// lasts as long as its session, and is valid no longer than the server could keep it.
#pragma once

#include <memory>

#include <distlock/client.h>

#include "backends/backend.h"
#include "core/stats.h"
#include "util/url.h"

namespace distlock::detail::zookeeper {

// Connects (eagerly, within connect_timeout): BackendUnavailable naming the server when it
// cannot, ConfigError for a bad URL, refused credentials or a missing chroot.
std::unique_ptr<Backend> make_backend(const Url& url, const Options& options, StatsCounters& stats);

}  // namespace distlock::detail::zookeeper
