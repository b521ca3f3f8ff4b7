// SPDX-License-Identifier: Apache-2.0
// The backends and topologies every backend-parameterised suite runs on (the lock behaviour, the
// async acquisitions, the fault rules), in one list: a backend or topology added here is one more
// parameter of each suite that takes every one, or of those whose capability it has. Each runs
// on the servers the suites of one process share (backend_servers.h), started by the first test
// that needs them; ctest runs every suite of one topology in one process (Backends/<name>).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tcp_proxy.h"

namespace distlock::testing {

// rediss..., etcds: the same topologies over TLS (test/support/tls_files.h), in a build with
// TLS.
enum class Backend {
  memory,
  redis,
  redis_sentinel,
  redis_redlock,
  redis_cluster,
  rediss,
  rediss_sentinel,
  rediss_redlock,
  rediss_cluster,
  zookeeper,
  etcd,
  etcds,
  postgresql
};

// "redis_sentinel": the test name's part.
std::string backend_name(const ::testing::TestParamInfo<Backend>& info);
// "redis+sentinel://": how GoogleTest prints a parameter.
void PrintTo(Backend backend, std::ostream* out);

// The URL of the backend's shared servers, started on first use (throws when they cannot
// start); memory:// a name of its own at each call, since clients of one name share locks.
std::string url_of(Backend backend);

// Capabilities a suite may need of its backends.
bool is_redlock(Backend backend);
bool is_tls(Backend backend);
// etcd://, etcds://.
bool is_etcd(Backend backend);
// Read-write locks, permits and fair locks (all but Redlock).
bool has_every_lock_kind(Backend backend);
// A client reaches each server its URL names, and no other: a fault proxy in front of each
// stands between the client and the whole store. Not so for Sentinel and Cluster, whose
// clients connect where the servers tell them, nor memory://, which has no server.
bool reached_as_its_url_says(Backend backend);

// A fault proxy can stand between a client and every server it reaches: each server its URL
// names, or, for Sentinel and Cluster, each server of a group whose servers announce their
// proxies (faultable_store). The TLS groups are left out: a fault below TLS is the one their
// plain twins meet, and rediss:// meets it through TLS.
bool faultable(Backend backend);
// A store of a faultable backend for the fault rules: its URL, and the proxies its servers stand
// behind that the URL does not name (a Sentinel group's or a Cluster's own, which the client
// learns of from the servers; none for the others, whose URL names every server).
struct FaultableStore {
  std::string url;
  std::vector<TcpProxy*> server_proxies;
};
FaultableStore faultable_store(Backend backend);
// The backends whose releases nobody waits for (a Lease leaving its scope) are made on a thread
// of the client's own (runtime/core/unawaited_releases.h): the client's next acquisition of the
// same lock waits for that release.
bool releases_wait_on_the_client(Backend backend);

// The backends this build has (TLS, libpq, gRPC, ZooKeeper's C client each optional) for
// which `wanted` holds, in the order of the enum.
std::vector<Backend> built_backends(const std::function<bool(Backend)>& wanted);
inline bool every_backend(Backend) { return true; }

}  // namespace distlock::testing
