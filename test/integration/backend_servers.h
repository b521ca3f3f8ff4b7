// SPDX-License-Identifier: Apache-2.0
// The servers the backend-parameterised suites of one process share (LockBehaviour and its
// kinds, AsyncAcquire and its kinds): each started by the first test that needs it, stopped when
// the process exits. ctest runs every such suite of one backend in one process
// (cmake/DistlockSuiteTests.cmake, SPLIT_INSTANTIATIONS), so that a backend's server (a
// ZooKeeper JVM, a six-node Cluster, a Sentinel group, PostgreSQL) starts once, not once a
// suite. Each test locks names of its own (unique_name), so a test finds no other's state.
#pragma once

#include "integration_helpers.h"
#include "zookeeper_helpers.h"
#if DISTLOCK_TEST_POSTGRESQL
#include "postgres_server.h"
#endif
#if DISTLOCK_TEST_ETCD
#include "etcd_server.h"
#endif

namespace distlock::testing {

#if DISTLOCK_TEST_ETCD
// An etcd that serves clients over https:// only, under the test CA (tls_files.h).
struct StartTlsEtcd {
  std::unique_ptr<EtcdServer> operator()() const {
    EtcdConfig config;
    config.tls = ServerTls::of_test_ca();
    return std::make_unique<EtcdServer>(config);
  }
};
#endif

struct BackendServers {
  SuiteRedis redis;
  SuiteSentinelGroup sentinel_group;
  SuiteRedlockMasters redlock_masters;
  SuiteRedisCluster cluster;
  SuiteTlsRedis tls_redis;
  SuiteTlsSentinelGroup tls_sentinel_group;
  SuiteRedlockMasters tls_redlock_masters{ServerTls::of_test_ca()};
  SuiteTlsRedisCluster tls_cluster;
  // For the fault rules (test/conformance/topology.h: faultable_store).
  SuiteProxiedSentinelGroup proxied_sentinel_group;
  SuiteProxiedRedisCluster proxied_cluster;
  SuiteZooKeeper zookeeper;
#if DISTLOCK_TEST_POSTGRESQL
  SuiteService<PostgresServer> postgres;
#endif
#if DISTLOCK_TEST_ETCD
  SuiteService<EtcdServer> etcd;
  SuiteService<EtcdServer, StartTlsEtcd> tls_etcd;
#endif
};

inline BackendServers& backend_servers() {
  static BackendServers servers;
  return servers;
}

}  // namespace distlock::testing
