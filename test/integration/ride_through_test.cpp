// SPDX-License-Identifier: Apache-2.0
// The one outage policy (runtime/core/ride_through.h) on every backend with one server, each
// reached through a proxy that stops taking connections and cuts those it has: an acquisition
// started during the outage rides it through while its wait lasts and is granted once the
// server is back; a wait without a deadline gives up after outage_limit with a
// BackendUnavailable that names the lock and the server. The suites of a backend share its
// server in one process (backend_servers.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <future>
#include <ostream>
#include <string>
#include <vector>

#include <distlock/distlock.h>

#include "async_outcome.h"
#include "backend_servers.h"
#include "captured_log.h"
#include "integration_helpers.h"
#include "tcp_proxy.h"
#include "zookeeper_helpers.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// Named apart from the other suites' Backend: the unity build puts them in one unit.
enum class OneServer { redis, zookeeper, etcd, postgresql };

std::string one_server_name(const ::testing::TestParamInfo<OneServer>& info) {
  switch (info.param) {
    case OneServer::redis:
      return "redis";
    case OneServer::zookeeper:
      return "zookeeper";
    case OneServer::etcd:
      return "etcd";
    case OneServer::postgresql:
      return "postgresql";
  }
  return "?";
}

void PrintTo(OneServer backend, std::ostream* out) { *out << one_server_name({backend, 0}); }

class RideThrough : public ::testing::TestWithParam<OneServer> {
 protected:
  void SetUp() override {
    try {
      server_url_ = server_url();
    } catch (const std::exception& e) {
      FAIL() << "cannot start the server: " << e.what();
    }
    key_ = unique_name("ride");
  }

  // The URL of the backend's server, reached through `proxy`, with `query` added.
  std::string through(const TcpProxy& proxy, const std::string& query = "") const {
    std::string url = server_url_;
    const std::string direct = "127.0.0.1:" + std::to_string(server_port_);
    url.replace(url.find(direct), direct.size(), proxy.address());
    std::string added = query;
    if (GetParam() == OneServer::zookeeper) {
      url = with_session_timeout(url);
      // Its acquisitions meet an outage only after connect_timeout, waiting for the session.
      if (query.find("connect_timeout") == std::string::npos)
        added += std::string(added.empty() ? "" : "&") + "connect_timeout=1s";
    }
    if (!added.empty()) url += (url.find('?') == std::string::npos ? "?" : "&") + added;
    return url;
  }

  // through(proxy) with connect_timeout and command_timeout a minute each: a step that waited
  // for its own timeout would outlast any wait a test gives.
  std::string with_minute_timeouts(const TcpProxy& proxy) const {
    // libpq's connect_timeout is whole seconds.
    return through(proxy, GetParam() == OneServer::postgresql
                              ? "connect_timeout=60&command_timeout=60s"
                              : "connect_timeout=60s&command_timeout=60s");
  }

  std::uint16_t port() const { return server_port_; }

  // An acquisition of `type` waiting 2 s with the server out of reach fails as unavailable,
  // well before the minute its steps' own timeouts would take.
  void expect_unavailable_by_the_wait(Client& client, const std::string& type) const {
    const auto started = std::chrono::steady_clock::now();
    try {
      (void)client.acquire(spec(std::string_view(type), 30s, wait(2s)), key_);
      ADD_FAILURE() << "acquired with the server out of reach";
    } catch (const BackendUnavailable& error) {
      EXPECT_EQ(error.lock(), type + ":" + key_);
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
  }

  std::string key_;

 private:
  std::string server_url() {
    BackendServers& servers = backend_servers();
    switch (GetParam()) {
      case OneServer::redis:
        server_port_ = servers.redis.get().port();
        return servers.redis.get().url();
      case OneServer::zookeeper:
        server_port_ = servers.zookeeper.get().port();
        return "zookeeper://127.0.0.1:" + std::to_string(server_port_);
      case OneServer::etcd:
#if DISTLOCK_TEST_ETCD
        server_port_ = servers.etcd.get().port();
        return servers.etcd.get().url();
#else
        break;
#endif
      case OneServer::postgresql:
#if DISTLOCK_TEST_POSTGRESQL
        server_port_ = servers.postgres.get().port();
        return servers.postgres.get().url();
#else
        break;
#endif
    }
    throw std::runtime_error("not built with this backend");
  }

  std::string server_url_;
  std::uint16_t server_port_ = 0;
};

// What an operation logs when it begins to ride an outage through.
bool told_of_riding(const CapturedLog& log) {
  const auto lines = log.lines_at(LogLevel::warning);
  return std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
    return line.find("riding it through") != std::string::npos;
  });
}

TEST_P(RideThrough, AnAcquisitionStartedInAnOutageIsGrantedOnceTheServerIsBack) {
  TcpProxy proxy(port());
  auto client = Client::connect(through(proxy));
  const CapturedLog log;
  proxy.refuse_connections();
  proxy.cut_all();
  auto acquired = std::async(std::launch::async, [&] {
    return client->acquire(spec("outage", 30s, wait(60s)), key_).fence();
  });
  ASSERT_TRUE(eventually([&] { return told_of_riding(log); }, 30s))
      << "the acquisition did not meet the outage: " << ::testing::PrintToString(log.lines());
  proxy.accept_connections();
  ASSERT_EQ(acquired.wait_for(60s), std::future_status::ready);
  std::uint64_t fence = 0;
  ASSERT_NO_THROW(fence = acquired.get());
  EXPECT_GT(fence, 0u);
}

TEST_P(RideThrough, AWaitWithoutADeadlineGivesUpAfterTheOutageLimitNamingLockAndServer) {
  TcpProxy proxy(port());
  auto client = Client::connect(through(proxy, "outage_limit=500ms"));
  proxy.refuse_connections();
  proxy.cut_all();
  try {
    (void)client->acquire(spec("outage", 30s), key_);
    ADD_FAILURE() << "acquired with the server out of reach";
  } catch (const BackendUnavailable& error) {
    EXPECT_EQ(error.lock(), "outage:" + key_);
    EXPECT_NE(error.server().find(proxy.address()), std::string::npos) << error.server();
  }
}

// Every step of an acquisition ends by its deadline (issue 44), on every backend.
class DeadlineBound : public RideThrough {};

// Every step of an acquisition (connecting, the handshake, borrowing a connection, a command)
// ends by the acquisition's own deadline when that comes before the step's timeout.
TEST_P(DeadlineBound, AWaitEndsByItsDeadlineWhenTheServerNeverAnswers) {
  TcpProxy proxy(port());
  auto client = Client::connect(with_minute_timeouts(proxy));
  proxy.blackhole_connections();
  proxy.cut_all();
  expect_unavailable_by_the_wait(*client, "unanswered");
}

// A server that stops answering on an open connection (frozen: nothing comes back, nothing
// is refused) ends the wait by its deadline too: a request already sent is not awaited to its
// own timeout, and the waiter's place is given back within the grace or left to be cleaned up.
// What the request takes once the server answers is given back: the lock is free again well
// before the ttl a grant to the wait that ended would keep it for.
class FreezeBound : public RideThrough {};

TEST_P(FreezeBound, AWaitEndsByItsDeadlineWhenTheServerFreezes) {
  TcpProxy proxy(port());
  auto client = Client::connect(with_minute_timeouts(proxy));
  // Connected and answered first, so that the freeze meets an open connection.
  (void)client->acquire(spec("frozen", 30s), key_ + "-before");
  {
    proxy.freeze();
    // Thawed however the wait ends, which lets what the client still awaits be answered.
    struct Thaw {
      TcpProxy& proxy;
      ~Thaw() { proxy.thaw(); }
    } thaw{proxy};
    expect_unavailable_by_the_wait(*client, "frozen");
  }
  auto other = Client::connect(through(proxy));
  EXPECT_NO_THROW((void)other->acquire(spec("frozen", 30s, wait(15s)), key_));
}

// The backends whose asynchronous acquisitions ride an outage through (ZooKeeper's would hold
// the executor's thread while they wait for the session: issue 45).
class AsyncRideThrough : public RideThrough {};

TEST_P(AsyncRideThrough, AnAsyncAcquisitionStartedInAnOutageIsGrantedOnceTheServerIsBack) {
  TcpProxy proxy(port());
  auto client = Client::connect(through(proxy));
  const CapturedLog log;
  proxy.refuse_connections();
  proxy.cut_all();
  auto granted = start_acquisition(*client, spec("outage", 30s, wait(60s)), key_);
  ASSERT_TRUE(eventually([&] { return told_of_riding(log); }, 30s))
      << "the acquisition did not meet the outage: " << ::testing::PrintToString(log.lines());
  proxy.accept_connections();
  Outcome outcome = outcome_of(granted);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  EXPECT_GT(outcome.lease.fence(), 0u);
}

TEST_P(AsyncRideThrough, ACancelWhileRidingThroughEndsItAtOnce) {
  TcpProxy proxy(port());
  auto client = Client::connect(through(proxy));
  const CapturedLog log;
  proxy.refuse_connections();
  proxy.cut_all();
  AsyncAcquisition handle;
  auto outcome_future = start_acquisition(*client, spec("outage", 30s, wait(60s)), key_, &handle);
  ASSERT_TRUE(eventually([&] { return told_of_riding(log); }, 30s));
  handle.cancel();
  // Within the pause (up to a second), not at the wait's end a minute later.
  ASSERT_EQ(outcome_future.wait_for(10s), std::future_status::ready);
  Outcome outcome = outcome_of(outcome_future);
  ASSERT_TRUE(outcome.error);
  EXPECT_NO_THROW(
      try { std::rethrow_exception(outcome.error); } catch (const AcquisitionCancelled&){})
      << error_of_type<Error>(outcome);
  // Nothing was taken: once the server is back, the lock is free well before the 30 s ttl a
  // grant to the cancelled acquisition would keep it for.
  proxy.accept_connections();
  EXPECT_NO_THROW((void)client->acquire(spec("outage", 30s, wait(10s)), key_));
}

TEST_P(AsyncRideThrough, AnAsyncWaitEndsByItsDeadlineWhenTheServerNeverAnswers) {
  TcpProxy proxy(port());
  auto client = Client::connect(with_minute_timeouts(proxy));
  proxy.blackhole_connections();
  proxy.cut_all();
  const auto started = std::chrono::steady_clock::now();
  auto granted = start_acquisition(*client, spec("unanswered", 30s, wait(2s)), key_);
  Outcome outcome = outcome_of(granted);
  ASSERT_TRUE(outcome.error) << "granted with the server out of reach";
  EXPECT_NO_THROW(
      try { std::rethrow_exception(outcome.error); } catch (const BackendUnavailable&){})
      << error_of_type<Error>(outcome);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
}

std::vector<OneServer> built_one_servers() {
  std::vector<OneServer> backends{OneServer::redis, OneServer::zookeeper};
#if DISTLOCK_TEST_ETCD
  backends.push_back(OneServer::etcd);
#endif
#if DISTLOCK_TEST_POSTGRESQL
  backends.push_back(OneServer::postgresql);
#endif
  return backends;
}

// Those whose asynchronous acquisitions ride an outage through (AsyncRideThrough).
std::vector<OneServer> without_zookeeper() {
  std::vector<OneServer> backends = built_one_servers();
  backends.erase(std::remove(backends.begin(), backends.end(), OneServer::zookeeper),
                 backends.end());
  return backends;
}

INSTANTIATE_TEST_SUITE_P(Backends, RideThrough, ::testing::ValuesIn(built_one_servers()),
                         one_server_name);
INSTANTIATE_TEST_SUITE_P(Backends, DeadlineBound, ::testing::ValuesIn(built_one_servers()),
                         one_server_name);
INSTANTIATE_TEST_SUITE_P(Backends, FreezeBound, ::testing::ValuesIn(built_one_servers()),
                         one_server_name);
INSTANTIATE_TEST_SUITE_P(Backends, AsyncRideThrough, ::testing::ValuesIn(without_zookeeper()),
                         one_server_name);

}  // namespace
}  // namespace distlock::testing
