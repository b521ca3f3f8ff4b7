// SPDX-License-Identifier: Apache-2.0
#include "topology.h"

#include <stdexcept>

#include "backend_servers.h"
#include "integration_helpers.h"
#include "zookeeper_helpers.h"

namespace distlock::testing {
namespace {

struct Described {
  const char* name;
  const char* scheme;
};

Described described(Backend backend) {
  switch (backend) {
    case Backend::memory:
      return {"memory", "memory://"};
    case Backend::redis:
      return {"redis", "redis://"};
    case Backend::redis_sentinel:
      return {"redis_sentinel", "redis+sentinel://"};
    case Backend::redis_redlock:
      return {"redis_redlock", "redis+redlock://"};
    case Backend::redis_cluster:
      return {"redis_cluster", "redis+cluster://"};
    case Backend::rediss:
      return {"rediss", "rediss://"};
    case Backend::rediss_sentinel:
      return {"rediss_sentinel", "rediss+sentinel://"};
    case Backend::rediss_redlock:
      return {"rediss_redlock", "rediss+redlock://"};
    case Backend::rediss_cluster:
      return {"rediss_cluster", "rediss+cluster://"};
    case Backend::zookeeper:
      return {"zookeeper", "zookeeper://"};
    case Backend::etcd:
      return {"etcd", "etcd://"};
    case Backend::etcds:
      return {"etcds", "etcds://"};
    case Backend::postgresql:
      return {"postgresql", "postgresql://"};
  }
  return {"?", "?"};
}

#if DISTLOCK_TEST_TLS
constexpr bool kBuiltWithTls = true;
#else
constexpr bool kBuiltWithTls = false;
#endif
#if DISTLOCK_TEST_ZOOKEEPER
constexpr bool kBuiltWithZooKeeper = true;
#else
constexpr bool kBuiltWithZooKeeper = false;
#endif
#if DISTLOCK_TEST_ETCD
constexpr bool kBuiltWithEtcd = true;
#else
constexpr bool kBuiltWithEtcd = false;
#endif
#if DISTLOCK_TEST_POSTGRESQL
constexpr bool kBuiltWithPostgres = true;
#else
constexpr bool kBuiltWithPostgres = false;
#endif

bool built(Backend backend) {
  return (kBuiltWithTls || !is_tls(backend)) &&
         (kBuiltWithZooKeeper || backend != Backend::zookeeper) &&
         (kBuiltWithEtcd || !is_etcd(backend)) &&
         (kBuiltWithPostgres || backend != Backend::postgresql);
}

}  // namespace

std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return described(info.param).name;
}

void PrintTo(Backend backend, std::ostream* out) { *out << described(backend).scheme; }

std::string url_of(Backend backend) {
  BackendServers& servers = backend_servers();
  switch (backend) {
    case Backend::memory:
      return "memory://" + unique_name("shared");
    case Backend::redis:
      return servers.redis.get().url();
    case Backend::redis_sentinel:
      return servers.sentinel_group.get().url();
    case Backend::redis_redlock:
      return servers.redlock_masters.url();
    case Backend::redis_cluster:
      return servers.cluster.get().url();
    case Backend::rediss:
      return with_test_ca(servers.tls_redis.get().url());
    case Backend::rediss_sentinel:
      return with_test_ca(servers.tls_sentinel_group.get().url());
    case Backend::rediss_redlock:
      return with_test_ca(servers.tls_redlock_masters.url());
    case Backend::rediss_cluster:
      return with_test_ca(servers.tls_cluster.get().url());
    case Backend::zookeeper:
      return with_session_timeout(servers.zookeeper.get().url());
    case Backend::etcd:
#if DISTLOCK_TEST_ETCD
      return servers.etcd.get().url();
#else
      break;
#endif
    case Backend::etcds:
#if DISTLOCK_TEST_ETCD
      return with_test_ca(servers.tls_etcd.get().url());
#else
      break;
#endif
    case Backend::postgresql:
#if DISTLOCK_TEST_POSTGRESQL
      return servers.postgres.get().url();
#else
      break;
#endif
  }
  throw std::logic_error(std::string("this build has no ") + described(backend).scheme);
}

bool is_redlock(Backend backend) {
  return backend == Backend::redis_redlock || backend == Backend::rediss_redlock;
}

bool is_tls(Backend backend) {
  return backend == Backend::rediss || backend == Backend::rediss_sentinel ||
         backend == Backend::rediss_redlock || backend == Backend::rediss_cluster ||
         backend == Backend::etcds;
}

bool is_etcd(Backend backend) { return backend == Backend::etcd || backend == Backend::etcds; }

bool has_every_lock_kind(Backend backend) { return !is_redlock(backend); }

bool reached_as_its_url_says(Backend backend) {
  switch (backend) {
    case Backend::memory:
    case Backend::redis_sentinel:
    case Backend::redis_cluster:
    case Backend::rediss_sentinel:
    case Backend::rediss_cluster:
      return false;
    default:
      return true;
  }
}

bool faultable(Backend backend) {
  return reached_as_its_url_says(backend) || backend == Backend::redis_sentinel ||
         backend == Backend::redis_cluster;
}

bool releases_wait_on_the_client(Backend backend) {
  switch (backend) {
    case Backend::redis_redlock:
    case Backend::redis_cluster:
    case Backend::rediss_redlock:
    case Backend::rediss_cluster:
    case Backend::etcd:
    case Backend::etcds:
    case Backend::postgresql:
      return true;
    default:
      return false;
  }
}

FaultableStore faultable_store(Backend backend) {
  BackendServers& servers = backend_servers();
  switch (backend) {
    case Backend::redis_sentinel: {
      const SentinelGroup& group = servers.proxied_sentinel_group.get();
      return {group.url(), group.server_proxies()};
    }
    case Backend::redis_cluster: {
      const RedisCluster& cluster = servers.proxied_cluster.get();
      return {cluster.url(), cluster.server_proxies()};
    }
    default:
      if (!reached_as_its_url_says(backend))
        throw std::logic_error(std::string("no fault proxy stands before every server of ") +
                               described(backend).scheme);
      return {url_of(backend), {}};
  }
}

std::vector<Backend> built_backends(const std::function<bool(Backend)>& wanted) {
  std::vector<Backend> kept;
  for (const Backend backend :
       {Backend::memory, Backend::redis, Backend::redis_sentinel, Backend::redis_redlock,
        Backend::redis_cluster, Backend::rediss, Backend::rediss_sentinel, Backend::rediss_redlock,
        Backend::rediss_cluster, Backend::zookeeper, Backend::etcd, Backend::etcds,
        Backend::postgresql})
    if (built(backend) && wanted(backend)) kept.push_back(backend);
  return kept;
}

}  // namespace distlock::testing
