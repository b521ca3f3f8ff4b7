// SPDX-License-Identifier: Apache-2.0
// The contract's failure rules under faults, on every backend and topology a fault proxy can
// stand in front of (test/conformance/topology.h: faultable): each server reached through a fault
// proxy (test/support/tcp_proxy.h; for Sentinel and Cluster, the proxies their servers
// announce), and each fault made on all of them at once, an outage of the whole store. An
// acquisition started during an outage rides it through while its wait lasts and is granted once
// the store is back; a wait without a deadline gives up after outage_limit with a
// BackendUnavailable that names the lock and the server; every wait ends by its deadline, whether
// the store refuses, never answers or freezes, and what a frozen store grants to a wait that ended
// is given back; the same for asynchronous acquisitions, and a cancel ends one at once; a lease
// dropped while the store is frozen goes at once, and its release arrives once the store is back;
// a leader is told to stop while its term is valid, before another can be elected.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <distlock/distlock.h>

#include "async_outcome.h"
#include "captured_log.h"
#include "integration_helpers.h"
#include "tcp_proxy.h"
#include "topology.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// A proxy in front of each server of a store, faulting them all together.
class FaultProxies {
 public:
  // Puts a proxy in front of each 127.0.0.1:<port> of the store's URL that is not one of its
  // servers' own proxies, and faults those too.
  explicit FaultProxies(const FaultableStore& store)
      : url_(store.url), store_proxies_(store.server_proxies) {
    static const std::regex kServer(R"(127\.0\.0\.1:(\d+))");
    std::string proxied;
    auto rest = url_.cbegin();
    for (std::sregex_iterator found(url_.begin(), url_.end(), kServer), end; found != end;
         ++found) {
      const auto port = static_cast<std::uint16_t>(std::stoi((*found)[1]));
      if (std::any_of(store_proxies_.begin(), store_proxies_.end(),
                      [&](const TcpProxy* proxy) { return proxy->port() == port; }))
        continue;
      proxies_.push_back(std::make_unique<TcpProxy>(port));
      proxied.append(rest, (*found)[0].first);
      proxied += proxies_.back()->address();
      rest = (*found)[0].second;
    }
    proxied.append(rest, url_.cend());
    url_ = std::move(proxied);
  }
  // The store's own proxies outlive the test: they pass everything again.
  ~FaultProxies() {
    for (TcpProxy* proxy : store_proxies_) {
      proxy->thaw();
      proxy->accept_connections();
      proxy->answer_connections();
    }
  }
  FaultProxies(const FaultProxies&) = delete;
  FaultProxies& operator=(const FaultProxies&) = delete;

  // The URL, through the proxies.
  const std::string& url() const { return url_; }
  // The proxies' addresses, one of which a message naming the server shows.
  std::vector<std::string> addresses() const {
    std::vector<std::string> shown;
    for (const auto& proxy : proxies_) shown.push_back(proxy->address());
    for (const TcpProxy* proxy : store_proxies_) shown.push_back(proxy->address());
    return shown;
  }

  void cut_all() { each(&TcpProxy::cut_all); }
  void freeze() { each(&TcpProxy::freeze); }
  void thaw() { each(&TcpProxy::thaw); }
  void refuse_connections() { each(&TcpProxy::refuse_connections); }
  void accept_connections() { each(&TcpProxy::accept_connections); }
  void blackhole_connections() { each(&TcpProxy::blackhole_connections); }

 private:
  void each(void (TcpProxy::*fault)()) {
    for (const auto& proxy : proxies_) (*proxy.*fault)();
    for (TcpProxy* proxy : store_proxies_) (proxy->*fault)();
  }

  std::string url_;
  std::vector<std::unique_ptr<TcpProxy>> proxies_;
  std::vector<TcpProxy*> store_proxies_;
};

class RideThrough : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    try {
      store_ = faultable_store(GetParam());
    } catch (const std::exception& e) {
      FAIL() << "cannot start the server: " << e.what();
    }
    key_ = unique_name("ride");
  }

  // The backend's URL through `proxies`, with `query` added.
  std::string through(const FaultProxies& proxies, const std::string& query = "") const {
    std::string url = proxies.url();
    std::string added = query;
    // Its acquisitions meet an outage only after connect_timeout, waiting for the session.
    if (GetParam() == Backend::zookeeper && query.find("connect_timeout") == std::string::npos)
      added += std::string(added.empty() ? "" : "&") + "connect_timeout=1s";
    if (!added.empty()) url += (url.find('?') == std::string::npos ? "?" : "&") + added;
    return url;
  }

  // through(proxies) with connect_timeout and command_timeout a minute each: a step that waited
  // for its own timeout would outlast any wait a test gives.
  std::string with_minute_timeouts(const FaultProxies& proxies) const {
    // libpq's connect_timeout is whole seconds.
    return through(proxies, GetParam() == Backend::postgresql
                                ? "connect_timeout=60&command_timeout=60s"
                                : "connect_timeout=60s&command_timeout=60s");
  }

  FaultProxies proxies() const { return FaultProxies(store_); }
  // The store's URL without a proxy of the test's own: for a client the test's faults leave
  // alone, where the client reaches the servers as its URL says (reached_as_its_url_says).
  const std::string& unproxied_url() const { return store_.url; }

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

  // Freezes the store behind `proxy` and drops `client`'s lease of "again" (taken before):
  // its release is on its way until the store thaws. The dropped lease's fence.
  std::uint64_t drop_while_frozen(FaultProxies& proxy, Client& client) const {
    std::optional<Lease> lease = client.acquire(spec("again", 60s), key_);
    const std::uint64_t fence = lease->fence();
    proxy.freeze();
    lease.reset();
    return fence;
  }

  std::string key_;

 private:
  FaultableStore store_;
};

// What an operation logs when it begins to ride an outage through.
TEST_P(RideThrough, AnAcquisitionStartedInAnOutageIsGrantedOnceTheServerIsBack) {
  FaultProxies proxy = proxies();
  auto client = Client::connect(through(proxy));
  const CapturedLog log;
  proxy.refuse_connections();
  proxy.cut_all();
  auto acquired = std::async(std::launch::async, [&] {
    return client->acquire(spec("outage", 30s, wait(60s)), key_).fence();
  });
  ASSERT_TRUE(eventually([&] { return log.told_of_riding(); }, 30s))
      << "the acquisition did not meet the outage: " << ::testing::PrintToString(log.lines());
  proxy.accept_connections();
  ASSERT_EQ(acquired.wait_for(60s), std::future_status::ready);
  std::uint64_t fence = 0;
  ASSERT_NO_THROW(fence = acquired.get());
  EXPECT_GT(fence, 0u);
}

TEST_P(RideThrough, AWaitWithoutADeadlineGivesUpAfterTheOutageLimitNamingLockAndServer) {
  FaultProxies proxy = proxies();
  auto client = Client::connect(through(proxy, "outage_limit=500ms"));
  proxy.refuse_connections();
  proxy.cut_all();
  try {
    (void)client->acquire(spec("outage", 30s), key_);
    ADD_FAILURE() << "acquired with the server out of reach";
  } catch (const BackendUnavailable& error) {
    EXPECT_EQ(error.lock(), "outage:" + key_);
    const auto addresses = proxy.addresses();
    EXPECT_TRUE(std::any_of(addresses.begin(), addresses.end(), [&](const std::string& address) {
      return error.server().find(address) != std::string::npos;
    })) << error.server();
  }
}

// Every step of an acquisition ends by its deadline (issue 44), on every backend.
class DeadlineBound : public RideThrough {};

// Every step of an acquisition (connecting, the handshake, borrowing a connection, a command)
// ends by the acquisition's own deadline when that comes before the step's timeout.
TEST_P(DeadlineBound, AWaitEndsByItsDeadlineWhenTheServerNeverAnswers) {
  FaultProxies proxy = proxies();
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
  FaultProxies proxy = proxies();
  auto client = Client::connect(with_minute_timeouts(proxy));
  // Connected and answered first, so that the freeze meets an open connection.
  (void)client->acquire(spec("frozen", 30s), key_ + "-before");
  {
    proxy.freeze();
    // Thawed however the wait ends, which lets what the client still awaits be answered.
    struct Thaw {
      FaultProxies& proxy;
      ~Thaw() { proxy.thaw(); }
    } thaw{proxy};
    expect_unavailable_by_the_wait(*client, "frozen");
  }
  auto other = Client::connect(through(proxy));
  EXPECT_NO_THROW((void)other->acquire(spec("frozen", 30s, wait(15s)), key_));
}

// The same rules for asynchronous acquisitions, and a cancel ends one that rides through.
class AsyncRideThrough : public RideThrough {};

TEST_P(AsyncRideThrough, AnAsyncAcquisitionStartedInAnOutageIsGrantedOnceTheServerIsBack) {
  FaultProxies proxy = proxies();
  auto client = Client::connect(through(proxy));
  const CapturedLog log;
  proxy.refuse_connections();
  proxy.cut_all();
  auto granted = start_acquisition(*client, spec("outage", 30s, wait(60s)), key_);
  ASSERT_TRUE(eventually([&] { return log.told_of_riding(); }, 30s))
      << "the acquisition did not meet the outage: " << ::testing::PrintToString(log.lines());
  proxy.accept_connections();
  Outcome outcome = outcome_of(granted);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  EXPECT_GT(outcome.lease.fence(), 0u);
}

TEST_P(AsyncRideThrough, ACancelWhileRidingThroughEndsItAtOnce) {
  FaultProxies proxy = proxies();
  auto client = Client::connect(through(proxy));
  const CapturedLog log;
  proxy.refuse_connections();
  proxy.cut_all();
  AsyncAcquisition handle;
  auto outcome_future = start_acquisition(*client, spec("outage", 30s, wait(60s)), key_, &handle);
  ASSERT_TRUE(eventually([&] { return log.told_of_riding(); }, 30s));
  handle.cancel();
  // Within the pause (up to a second), not at the wait's end a minute later.
  ASSERT_EQ(outcome_future.wait_for(10s), std::future_status::ready);
  Outcome outcome = outcome_of(outcome_future);
  ASSERT_TRUE(outcome.error);
  EXPECT_NO_THROW(
      try { std::rethrow_exception(outcome.error); } catch (const AcquisitionCancelled&){})
      << error_of_type<Error>(outcome);
  // Nothing was taken: once the server is back, the lock is free long before the 30 s ttl a
  // grant to the cancelled acquisition would keep it for, and the client reaches the server
  // again within a retry pause (a second) and a connect (etcd's channel took 5 to 10 s before
  // etcd/reconnect_watch.h).
  proxy.accept_connections();
  EXPECT_NO_THROW((void)client->acquire(spec("outage", 30s, wait(5s)), key_));
}

TEST_P(AsyncRideThrough, AnAsyncWaitEndsByItsDeadlineWhenTheServerNeverAnswers) {
  FaultProxies proxy = proxies();
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

// A Lease leaving its scope (a woven coroutine's co_return, a lease dropped on an io_context's
// thread) does not wait for its release: with the store frozen, the drop returns at once, and the
// release reaches the store once it answers again (another client takes the lock long before
// the ttl would free it).
class UnawaitedRelease : public RideThrough {};

TEST_P(UnawaitedRelease, ALeaseDroppedWhileTheStoreIsFrozenGoesAtOnceAndItsReleaseArrives) {
  FaultProxies proxy = proxies();
  auto client = Client::connect(with_minute_timeouts(proxy));
  std::optional<Lease> lease = client->acquire(spec("dropped", 60s), key_);
  proxy.freeze();
  auto dropped = std::async(std::launch::async, [&] { lease.reset(); });
  const bool went_at_once = dropped.wait_for(10s) == std::future_status::ready;
  proxy.thaw();
  dropped.wait();
  EXPECT_TRUE(went_at_once) << "the drop waited for the frozen store";
  auto other = Client::connect(through(proxy));
  EXPECT_NO_THROW((void)other->acquire(spec("dropped", 60s, wait(20s)), key_))
      << "the release did not arrive";
}

// The client's next acquisition of a lock whose release is still on its way comes after it: it
// does not find its own owner holding the lock and take the hold over (the release, coming late,
// would then report a loss). An acquisition, blocking or not, is granted once the release is
// made, with a new fence.
TEST_P(UnawaitedRelease, AnAcquisitionWhileTheClientsOwnReleaseIsOnItsWayComesAfter) {
  FaultProxies proxy = proxies();
  auto client = Client::connect(with_minute_timeouts(proxy));
  const std::uint64_t first_fence = drop_while_frozen(proxy, *client);
  auto again = std::async(std::launch::async, [&] {
    return client->acquire(spec("again", 60s, wait(20s)), key_).fence();
  });
  proxy.thaw();
  std::uint64_t fence = 0;
  ASSERT_NO_THROW(fence = again.get());
  EXPECT_GT(fence, first_fence);
  EXPECT_EQ(client->stats().lost, 0u);
  EXPECT_EQ(client->stats().release_failures, 0u);
}

TEST_P(UnawaitedRelease, AnAsyncAcquisitionStartedWhileTheClientsOwnReleaseIsOnItsWayComesAfter) {
  FaultProxies proxy = proxies();
  auto client = Client::connect(with_minute_timeouts(proxy));
  const std::uint64_t first_fence = drop_while_frozen(proxy, *client);
  auto granted = start_acquisition(*client, spec("again", 60s, wait(20s)), key_);
  proxy.thaw();
  Outcome outcome = outcome_of(granted);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  EXPECT_GT(outcome.lease.fence(), first_fence);
  EXPECT_EQ(client->stats().lost, 0u);
  EXPECT_EQ(client->stats().release_failures, 0u);
}

// Where the client makes the release itself, an asynchronous acquisition waits for it without
// having asked the store anything, and a cancel ends it at once.
class ReleaseMadeByTheClient : public RideThrough {};

TEST_P(ReleaseMadeByTheClient, ACancelEndsAnAsyncAcquisitionWaitingForItsClientsOwnRelease) {
  FaultProxies proxy = proxies();
  auto client = Client::connect(with_minute_timeouts(proxy));
  drop_while_frozen(proxy, *client);
  AsyncAcquisition handle;
  auto cancelled = start_acquisition(*client, spec("again", 60s, wait(60s)), key_, &handle);
  handle.cancel();
  const bool ended = cancelled.wait_for(10s) == std::future_status::ready;
  proxy.thaw();
  ASSERT_TRUE(ended) << "the cancel did not end the acquisition";
  Outcome outcome = outcome_of(cancelled);
  ASSERT_TRUE(outcome.error);
  EXPECT_NO_THROW(
      try { std::rethrow_exception(outcome.error); } catch (const AcquisitionCancelled&){})
      << error_of_type<Error>(outcome);
  EXPECT_NO_THROW((void)client->acquire(spec("again", 60s, wait(20s)), key_));
}

// A leader that cannot prove its term is told to stop while the term is still valid, with the
// rest of it to stop in, and before anyone else can be elected: the store's expiry of the term
// comes after its local validity. Another campaigner that reaches the store without the frozen
// proxy campaigns all along; on Sentinel and Cluster, whose clients meet the same frozen
// servers, once they thaw.
class LeaderUnderFault : public RideThrough {};

TEST_P(LeaderUnderFault, AFrozenStoreStopsTheLeaderWhileItsTermIsValidAndBeforeAnotherLeads) {
  FaultProxies proxy = proxies();
  auto leader_client = Client::connect(through(proxy));
  const auto term = election(std::string_view(key_), 2s);
  std::optional<Leadership> leadership = leader_client->campaign(term);
  const std::uint64_t first_epoch = leadership->epoch();
  proxy.freeze();

  const bool campaigns_meanwhile = reached_as_its_url_says(GetParam());
  std::shared_ptr<Client> other_client;
  const auto patient = election(std::string_view(key_), 2s, wait(30s));
  std::future<Leadership> other;
  if (campaigns_meanwhile) {
    other_client = Client::connect(unproxied_url());
    other = std::async(std::launch::async, [&] { return other_client->campaign(patient); });
  }

  bool valid_when_told = false;
  bool other_elected_before = false;
  const bool told = eventually(
      [&] {
        if (!leadership->stop_requested()) return false;
        valid_when_told = leadership->valid();
        other_elected_before = other.valid() && other.wait_for(0s) == std::future_status::ready;
        return true;
      },
      20s);
  // The leader stops and resigns; its release arrives once the store answers.
  leadership.reset();
  proxy.thaw();
  EXPECT_TRUE(told) << "the frozen store's leader was never told to stop";
  EXPECT_TRUE(valid_when_told) << "told only once its term had run out";
  EXPECT_FALSE(other_elected_before) << "another was elected before the leader was told";
  if (!campaigns_meanwhile) {
    other_client = Client::connect(through(proxy));
    other = std::async(std::launch::async, [&] { return other_client->campaign(patient); });
  }
  std::optional<Leadership> next;
  ASSERT_NO_THROW(next.emplace(other.get()));
  EXPECT_GT(next->epoch(), first_epoch);
}

INSTANTIATE_TEST_SUITE_P(Backends, RideThrough, ::testing::ValuesIn(built_backends(faultable)),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, DeadlineBound, ::testing::ValuesIn(built_backends(faultable)),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, FreezeBound, ::testing::ValuesIn(built_backends(faultable)),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, UnawaitedRelease, ::testing::ValuesIn(built_backends(faultable)),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, ReleaseMadeByTheClient,
                         ::testing::ValuesIn(built_backends([](Backend backend) {
                           return faultable(backend) && releases_wait_on_the_client(backend);
                         })),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, LeaderUnderFault, ::testing::ValuesIn(built_backends(faultable)),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, AsyncRideThrough, ::testing::ValuesIn(built_backends(faultable)),
                         backend_name);

}  // namespace
}  // namespace distlock::testing
