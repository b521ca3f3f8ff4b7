// SPDX-License-Identifier: Apache-2.0
// The distlock command against a real redis-server: list (every lock kind), show (a fair lock's
// queue in order), release (of a live holder, which then loses its lease; with an --id that
// does not hold; without --force), watch, server (the version, the memory policy and whether
// the server may evict lock keys), and the input it refuses. Output is read as an operator's
// script would: --json, parsed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "distlock_command.h"
#include "integration_helpers.h"
#include "redis_cluster.h"
#include "redis_server.h"
#include "subprocess.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

class DistlockCommandRedis : public ::testing::Test {
 protected:
  std::shared_ptr<Client> connect() const { return Client::connect(server_.url()); }
  CommandResult distlock(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--url", server_.url()});
    return run_distlock(args);
  }
  nlohmann::json list_json(const std::string& pattern = {}) const {
    std::vector<std::string> args = {"--json", "list"};
    if (!pattern.empty()) args.push_back(pattern);
    const auto result = distlock(args);
    EXPECT_EQ(result.code(), 0) << result.describe();
    return result.json();
  }

  RedisServer server_;
  const std::string type_ = unique_name("cmd");
};

// As expect_holder, and a Redis hold expires: its time left is the ttl at most.
void expect_hold_of(const nlohmann::json& lock, const Lease& lease, const std::string& kind) {
  const auto hold = expect_holder(lock, lease, kind);
  if (hold.is_null()) return;
  EXPECT_GT(hold.at("time_left_ms").get<long long>(), 0) << hold;
  EXPECT_LE(hold.at("time_left_ms").get<long long>(), lease.ttl().count()) << hold;
}

TEST_F(DistlockCommandRedis, ListsEveryLockKindWithItsHolder) {
  const auto client = connect();
  const auto other = connect();
  const Lease exclusive = client->acquire(spec(std::string_view(type_ + "x"), 30s), "a");
  const Lease reader =
      client->acquire(spec(std::string_view(type_ + "rw"), 30s, distlock::read), "r");
  const Lease second_reader =
      other->acquire(spec(std::string_view(type_ + "rw"), 30s, distlock::read), "r");
  const Lease writer =
      client->acquire(spec(std::string_view(type_ + "rw"), 30s, distlock::write), "w");
  const Lease permit =
      client->acquire(spec(std::string_view(type_ + "sem"), 30s, distlock::permits(2)), "p");
  const Lease second_permit =
      other->acquire(spec(std::string_view(type_ + "sem"), 30s, distlock::permits(2)), "p");
  Lease fair_holder =
      client->acquire(spec(std::string_view(type_ + "fair"), 30s, distlock::fair), "f");
  // A fair waiter makes the fair lock known as one: its queue is on the server.
  std::thread waiter([&] {
    Lease granted = other->acquire(
        spec(std::string_view(type_ + "fair"), 30s, distlock::fair, distlock::wait(30s)), "f");
  });
  ASSERT_TRUE(eventually([&] {
    const auto lock = listed_lock(list_json(), fair_holder.name());
    return !lock.is_null() && lock.at("waiters").size() == 1;
  })) << "the fair waiter never showed in the queue";

  const auto listing = list_json();
  EXPECT_EQ(listing.at("server"), server_.url());
  expect_hold_of(listed_lock(listing, exclusive.name()), exclusive, "exclusive");
  const auto read_write = listed_lock(listing, reader.name());
  expect_hold_of(read_write, reader, "read");
  expect_hold_of(read_write, second_reader, "read");
  expect_hold_of(listed_lock(listing, writer.name()), writer, "write");
  const auto semaphore = listed_lock(listing, permit.name());
  expect_hold_of(semaphore, permit, "semaphore");
  expect_hold_of(semaphore, second_permit, "semaphore");
  const auto fair_lock = listed_lock(listing, fair_holder.name());
  expect_hold_of(fair_lock, fair_holder, "fair");
  ASSERT_EQ(fair_lock.at("waiters").size(), 1u);
  EXPECT_EQ(fair_lock.at("waiters")[0].at("kind"), "fair");

  // A pattern narrows the listing to the names it matches.
  const auto narrowed = list_json(type_ + "rw:*");
  ASSERT_EQ(narrowed.at("locks").size(), 2u) << narrowed;
  EXPECT_FALSE(listed_lock(narrowed, reader.name()).is_null());
  EXPECT_FALSE(listed_lock(narrowed, writer.name()).is_null());

  // The table for people names every lock and its holder.
  const auto table = distlock({"list"});
  ASSERT_EQ(table.code(), 0) << table.describe();
  EXPECT_NE(table.out.find("KIND"), std::string::npos) << table.out;
  for (const Lease* lease :
       std::initializer_list<const Lease*>{&exclusive, &reader, &writer, &permit, &fair_holder})
    EXPECT_NE(table.out.find(lease->id()), std::string::npos) << table.out;

  fair_holder.release();
  waiter.join();
}

TEST_F(DistlockCommandRedis, ShowGivesAFairLocksWaitersInTheirOrder) {
  const auto client = connect();
  const LockSpec fair_spec =
      spec(std::string_view(type_), 30s, distlock::fair, distlock::wait(30s));
  std::optional<Lease> holder = client->acquire(fair_spec, "queue");
  const std::string name = holder->name();
  const auto waiters_shown = [&] {
    const auto result = distlock({"--json", "show", name});
    return result.code() == 0 ? result.json().at("lock").at("waiters").size() : 0u;
  };
  // Each waiter joins after the one before is in the queue: their order is known.
  std::promise<std::string> first_id;
  std::promise<std::string> second_id;
  std::promise<void> first_may_release;
  std::thread first([&] {
    Lease lease = client->acquire(fair_spec, "queue");
    first_id.set_value(lease.id());
    first_may_release.get_future().wait();
  });
  ASSERT_TRUE(eventually([&] { return waiters_shown() == 1; }));
  std::thread second([&] {
    Lease lease = client->acquire(fair_spec, "queue");
    second_id.set_value(lease.id());
  });
  ASSERT_TRUE(eventually([&] { return waiters_shown() == 2; }));

  const auto shown = distlock({"--json", "show", name});
  ASSERT_EQ(shown.code(), 0) << shown.describe();
  const auto lock = shown.json().at("lock");
  EXPECT_EQ(lock.at("name"), name);
  expect_hold_of(lock, *holder, "fair");
  const auto waiters = lock.at("waiters");
  ASSERT_EQ(waiters.size(), 2u) << lock;

  holder.reset();  // released: the first in the queue is granted
  auto first_future = first_id.get_future();
  EXPECT_EQ(waiters[0].at("acquisition_id"), first_future.get());
  first_may_release.set_value();
  first.join();
  EXPECT_EQ(waiters[1].at("acquisition_id"), second_id.get_future().get());
  second.join();

  const auto text = distlock({"show", name});
  EXPECT_EQ(text.code(), 1) << text.describe();
}

TEST_F(DistlockCommandRedis, ForceReleaseMakesALiveHolderLoseItsLease) {
  // Renewed every ~0.7 s.
  expect_force_release_ends_a_live_lease(*connect(), *connect(), spec(std::string_view(type_), 2s),
                                         [this](auto args) { return distlock(std::move(args)); });
}

TEST_F(DistlockCommandRedis, ReleaseWithAnotherAcquisitionIdReleasesNothing) {
  const auto client = connect();
  const Lease lease = client->acquire(spec(std::string_view(type_), 30s, distlock::write), "kept");

  expect_release_of_another_id_keeps(lease,
                                     [this](auto args) { return distlock(std::move(args)); });
  expect_hold_of(listed_lock(list_json(), lease.name()), lease, "write");

  const auto matching =
      distlock({"--json", "release", lease.name(), "--force", "--id", lease.id()});
  ASSERT_EQ(matching.code(), 0) << matching.describe();
  const auto released = matching.json().at("released");
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0].at("acquisition_id"), lease.id());
  EXPECT_EQ(released[0].at("kind"), "write");
  EXPECT_TRUE(listed_lock(list_json(), lease.name()).is_null());
}

// On a Redis Cluster the command lists every master's locks, reads and force-releases a lock
// on the master of its slot (another master would answer MOVED), and describes every master.
// `url` is the cluster's, with what its client needs (a CA for TLS).
void expect_every_masters_locks_listed_and_released_on_the_slots_master(RedisCluster& cluster,
                                                                        const std::string& url) {
  const auto client = Client::connect(url);
  const std::string type = unique_name("cmd");
  // Names until two masters each hold one lock.
  std::vector<Lease> leases;
  std::set<int> masters;
  for (int key = 0; masters.size() < 2; ++key) {
    Lease lease = client->acquire(spec(std::string_view(type), 30s), std::to_string(key));
    const int slot = cluster.key_slot("distlock:{" + lease.name() + "}");
    if (masters.insert(cluster.master_of(slot).port()).second) leases.push_back(std::move(lease));
  }
  const DistlockRun distlock = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--url", url});
    return run_distlock(args);
  };

  const auto listed = distlock({"--json", "list", type + ":*"});
  ASSERT_EQ(listed.code(), 0) << listed.describe();
  for (const Lease& lease : leases)
    expect_hold_of(listed_lock(listed.json(), lease.name()), lease, "exclusive");

  for (const Lease& lease : leases) {
    const auto shown = distlock({"--json", "show", lease.name()});
    ASSERT_EQ(shown.code(), 0) << shown.describe();
    expect_hold_of(shown.json().at("lock"), lease, "exclusive");
  }

  expect_release_of_another_id_keeps(leases.front(), distlock);
  expect_force_release_ends_a_live_lease(*client, *Client::connect(url),
                                         spec(std::string_view(type + "-stuck"), 2s), distlock);

  // `server` describes every master of the slot map.
  const auto described = distlock({"--json", "server"});
  ASSERT_EQ(described.code(), 0) << described.describe();
  EXPECT_EQ(described.json().at("servers").size(), 3u) << described.out;
}

TEST(DistlockCommandRedisCluster, ListsEveryMastersLocksAndReleasesOnTheSlotsMaster) {
  RedisCluster cluster(3, 0);
  expect_every_masters_locks_listed_and_released_on_the_slots_master(cluster, cluster.url());
}

#if DISTLOCK_TEST_TLS
// The command takes a service's rediss+cluster:// URL: every master, and the slot's master a
// release goes to, over TLS.
TEST(DistlockCommandRedisCluster, DoesTheSameOverTls) {
  RedisCluster cluster(3, 0, ServerTls::of_test_ca());
  expect_every_masters_locks_listed_and_released_on_the_slots_master(cluster,
                                                                     with_test_ca(cluster.url()));
}
#endif

TEST_F(DistlockCommandRedis, ReleaseWithoutForceDeletesNothing) {
  const Lease lease = connect()->acquire(spec(std::string_view(type_), 30s), "guarded");
  const auto result = distlock({"release", lease.name()});
  EXPECT_EQ(result.code(), 2) << result.describe();
  EXPECT_NE(result.err.find("--force"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(lease.name()), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(server_.url()), std::string::npos) << result.err;
  expect_hold_of(listed_lock(list_json(), lease.name()), lease, "exclusive");

  const auto nobody = distlock({"release", type_ + ":nobody", "--force"});
  EXPECT_EQ(nobody.code(), 1) << nobody.describe();
  EXPECT_NE(nobody.err.find("nobody holds"), std::string::npos) << nobody.err;
}

TEST_F(DistlockCommandRedis, LeaderShowsWhoLeadsAnElectionAndTheTermsEpoch) {
  const std::string name = unique_name("election");
  Leadership term = connect()->campaign(election(std::string_view(name), 30s));
  const auto text = distlock({"leader", name});
  EXPECT_EQ(text.code(), 0) << text.describe();
  EXPECT_NE(text.out.find("epoch " + std::to_string(term.epoch())), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(term.lease().id()), std::string::npos) << text.out;
  const auto json = distlock({"--json", "leader", name});
  ASSERT_EQ(json.code(), 0) << json.describe();
  const nlohmann::json document = json.json();
  EXPECT_EQ(document.at("election"), name);
  EXPECT_EQ(document.at("leader").at("fence").get<std::uint64_t>(), term.epoch()) << document;
  EXPECT_EQ(document.at("leader").at("acquisition_id"), term.lease().id()) << document;

  term.resign();
  const auto nobody = distlock({"leader", name});
  EXPECT_EQ(nobody.code(), 1) << nobody.describe();
  EXPECT_NE(nobody.err.find("nobody leads"), std::string::npos) << nobody.err;
  EXPECT_NE(nobody.err.find("elections:" + name), std::string::npos) << nobody.err;
  const auto nobody_json = distlock({"--json", "leader", name});
  EXPECT_TRUE(nobody_json.json().at("leader").is_null()) << nobody_json.out;
}

TEST_F(DistlockCommandRedis, ShowOfAnUnknownNameNamesTheLockAndTheServer) {
  const auto result = distlock({"show", type_ + ":missing"});
  EXPECT_EQ(result.code(), 1) << result.describe();
  EXPECT_NE(result.err.find(type_ + ":missing"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(server_.url()), std::string::npos) << result.err;
}

TEST_F(DistlockCommandRedis, ANameTheRuntimeNeverWritesIsAUsageError) {
  const Lease lease = connect()->acquire(spec(std::string_view(type_), 30s), "safe");
  for (const std::string& name : {type_ + ":a/b", type_ + "}:safe", std::string()}) {
    const auto shown = distlock({"show", name});
    EXPECT_EQ(shown.code(), 2) << shown.describe();
    EXPECT_NE(shown.err.find("not a lock name"), std::string::npos) << shown.err;
    const auto released = distlock({"release", name, "--force"});
    EXPECT_EQ(released.code(), 2) << released.describe();
  }
  expect_hold_of(listed_lock(list_json(), lease.name()), lease, "exclusive");
}

TEST_F(DistlockCommandRedis, WatchReportsGrantsAndReleasesAndStopsOnSigterm) {
  Subprocess watch(
      "/bin/sh", {"-c", "exec \"$0\" \"$@\" 2>/dev/null", DISTLOCK_COMMAND, "--url", server_.url(),
                  "--json", "watch", type_ + ":*", "--interval-ms", "100"});
  // Each event is a JSON line; waits for the one asked for.
  const auto await_event = [&](const std::string& event, const std::string& id) {
    for (;;) {
      const auto line = watch.read_line(30s);
      if (!line) return false;
      const auto json = nlohmann::json::parse(*line);
      if (json.at("event") == event && json.at("acquisition_id") == id) return true;
    }
  };
  const auto client = connect();
  std::optional<Lease> lease = client->acquire(spec(std::string_view(type_), 30s), "watched");
  const std::string id = lease->id();
  EXPECT_TRUE(await_event("grant", id));
  lease.reset();
  EXPECT_TRUE(await_event("release", id));

  watch.kill(SIGTERM);
  const auto status = watch.wait(30s);
  EXPECT_TRUE(status.success()) << status.describe();
}

TEST_F(DistlockCommandRedis, WatchStopsAfterItsCount) {
  const Lease lease = connect()->acquire(spec(std::string_view(type_), 30s), "counted");
  const auto result = distlock({"--json", "watch", "--count", "1"});
  ASSERT_EQ(result.code(), 0) << result.describe();
  const auto event = nlohmann::json::parse(result.out.substr(0, result.out.find('\n')));
  EXPECT_EQ(event.at("event"), "grant");
  EXPECT_EQ(event.at("name"), lease.name());
  EXPECT_EQ(event.at("acquisition_id"), lease.id());
}

TEST_F(DistlockCommandRedis, TakesTheUrlFromTheEnvironment) {
  const Lease lease = connect()->acquire(spec(std::string_view(type_), 30s), "env");
  const auto result = run_distlock({"--json", "show", lease.name()}, server_.url());
  ASSERT_EQ(result.code(), 0) << result.describe();
  expect_hold_of(result.json().at("lock"), lease, "exclusive");

  // A service's URL as it is, query and all.
  const auto with_query = run_distlock(
      {"--json", "show", lease.name()},
      server_.url() + "?connect_timeout=2s&command_timeout=2s&max_connections=4&min_replicas=0");
  ASSERT_EQ(with_query.code(), 0) << with_query.describe();
  expect_hold_of(with_query.json().at("lock"), lease, "exclusive");
}

// The one server a `server --json` output describes (a failure, and null, when it describes
// another number of servers).
nlohmann::json described_server(const CommandResult& result) {
  EXPECT_EQ(result.code(), 0) << result.describe();
  const auto servers = result.json().at("servers");
  EXPECT_EQ(servers.size(), 1u) << servers;
  return servers.size() == 1 ? servers[0] : nlohmann::json();
}

TEST_F(DistlockCommandRedis, ServerShowsTheVersionAndThatNoMaxmemoryIsSafe) {
  const auto facts = described_server(distlock({"--json", "server"}));
  ASSERT_FALSE(facts.is_null());
  EXPECT_EQ(facts.at("server"), server_.url());
  EXPECT_EQ(facts.at("kind"), "redis");
  EXPECT_NE(facts.at("version").get<std::string>().find('.'), std::string::npos) << facts;
  EXPECT_EQ(facts.at("maxmemory"), 0) << facts;
  EXPECT_EQ(facts.at("maxmemory_policy"), "noeviction") << facts;
  EXPECT_EQ(facts.at("eviction"), "safe") << facts;
  EXPECT_NE(facts.at("reason").get<std::string>().find("no maxmemory"), std::string::npos) << facts;

  const auto text = distlock({"server"});
  ASSERT_EQ(text.code(), 0) << text.describe();
  EXPECT_NE(text.out.find(server_.url()), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Redis " + facts.at("version").get<std::string>()), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("eviction: safe"), std::string::npos) << text.out;
}

TEST(DistlockCommandServer, AMaxmemoryWithAnyPolicyButNoevictionPutsLocksAtRisk) {
  const RedisServer server({"--maxmemory", "64mb", "--maxmemory-policy", "volatile-lru"});
  const auto facts = described_server(run_distlock({"--url", server.url(), "--json", "server"}));
  ASSERT_FALSE(facts.is_null());
  EXPECT_EQ(facts.at("maxmemory"), 64 * 1024 * 1024) << facts;
  EXPECT_EQ(facts.at("maxmemory_policy"), "volatile-lru") << facts;
  EXPECT_EQ(facts.at("eviction"), "at_risk") << facts;
  const auto reason = facts.at("reason").get<std::string>();
  EXPECT_NE(reason.find("volatile-lru"), std::string::npos) << reason;
  EXPECT_NE(reason.find("set maxmemory-policy noeviction"), std::string::npos) << reason;

  const auto text = run_distlock({"--url", server.url(), "server"});
  ASSERT_EQ(text.code(), 0) << text.describe();
  EXPECT_NE(text.out.find("maxmemory-policy volatile-lru"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("eviction: AT RISK"), std::string::npos) << text.out;

  ASSERT_EQ(server.cli({"CONFIG", "SET", "maxmemory-policy", "noeviction"}), "OK");
  const auto fixed = described_server(run_distlock({"--url", server.url(), "--json", "server"}));
  EXPECT_EQ(fixed.at("eviction"), "safe") << fixed;
}

TEST(DistlockCommandServer, AUserWithoutInfoCouldNotBeChecked) {
  const RedisServer server({"--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"});
  server.cli({"ACL", "SETUSER", "locker", "on", ">s3cret-word", "resetchannels", "~distlock:*",
              "&distlock:*", "-@all", "+@scripting", "+@pubsub", "+@read", "+@write", "+time"});
  const std::string url = "redis://locker:s3cret-word@127.0.0.1:" + std::to_string(server.port());
  const auto result = run_distlock({"--url", url, "--json", "server"});
  const auto facts = described_server(result);
  ASSERT_FALSE(facts.is_null());
  EXPECT_EQ(facts.at("server"), "redis://***@127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(facts.at("eviction"), "unchecked") << facts;
  EXPECT_TRUE(facts.at("maxmemory").is_null()) << facts;
  EXPECT_TRUE(facts.at("maxmemory_policy").is_null()) << facts;
  const auto reason = facts.at("reason").get<std::string>();
  EXPECT_NE(reason.find("NOPERM"), std::string::npos) << reason;
  EXPECT_NE(reason.find("+info"), std::string::npos) << reason;
  EXPECT_EQ(result.out.find("s3cret"), std::string::npos) << result.out;

  const auto text = run_distlock({"--url", url, "server"});
  ASSERT_EQ(text.code(), 0) << text.describe();
  EXPECT_NE(text.out.find("eviction: could not be checked"), std::string::npos) << text.out;
}

TEST(DistlockCommandServer, DescribesEveryRedlockMaster) {
  SuiteRedlockMasters masters;
  const auto result = run_distlock({"--url", masters.url(), "--json", "server"});
  ASSERT_EQ(result.code(), 0) << result.describe();
  const auto servers = result.json().at("servers");
  ASSERT_EQ(servers.size(), 3u) << servers;
  std::set<std::string> named;
  for (const auto& facts : servers) {
    named.insert(facts.at("server").get<std::string>());
    EXPECT_EQ(facts.at("eviction"), "safe") << facts;
  }
  EXPECT_EQ(named.size(), 3u) << servers;
  for (const auto& name : named)
    EXPECT_NE(masters.url().find(name.substr(std::string("redis://").size())), std::string::npos)
        << name;
}

TEST(DistlockCommandServer, EvictionDoesNotApplyToMemory) {
  const auto facts = described_server(run_distlock({"--url", "memory://", "--json", "server"}));
  ASSERT_FALSE(facts.is_null());
  EXPECT_EQ(facts.at("kind"), "memory");
  EXPECT_EQ(facts.at("eviction"), "not_applicable");
  EXPECT_TRUE(facts.at("maxmemory").is_null()) << facts;
}

TEST(DistlockCommandPassword, IsNeverPrinted) {
  const RedisServer server({"--requirepass", "s3cret-word"});
  const std::string url = "redis://:s3cret-word@127.0.0.1:" + std::to_string(server.port());
  const Lease lease =
      Client::connect(url)->acquire(spec(std::string_view(unique_name("pw")), 30s), "k");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--url", url, "--json", "list"},
           {"--url", url, "list"},
           {"--url", url, "show", lease.name()},
           {"--url", url, "show", "nobody:here"},
           {"--url", url, "release", lease.name()},
           {"--url", "redis://:s3cret-word@127.0.0.1:" + std::to_string(free_loopback_port()),
            "list"}}) {
    const auto result = run_distlock(args);
    EXPECT_EQ(result.out.find("s3cret"), std::string::npos) << result.describe();
    EXPECT_EQ(result.err.find("s3cret"), std::string::npos) << result.describe();
  }
  const auto listing = run_distlock({"--url", url, "--json", "list"});
  ASSERT_EQ(listing.code(), 0) << listing.describe();
  EXPECT_EQ(listing.json().at("server"), "redis://***@127.0.0.1:" + std::to_string(server.port()));
}

TEST(DistlockCommandRedlock, ListsAndReleasesTheHoldOnEveryMaster) {
  SuiteRedlockMasters masters;
  const std::string url = masters.url();
  Lease lease =
      Client::connect(url)->acquire(spec(std::string_view(unique_name("redlock")), 2s), "k");
  std::promise<void> lost;
  lease.on_lost([&](const LockLost&) { lost.set_value(); });

  // One lock, held on each master under the same acquisition.
  const auto listing = run_distlock({"--url", url, "--json", "list"});
  ASSERT_EQ(listing.code(), 0) << listing.describe();
  ASSERT_EQ(listing.json().at("locks").size(), 1u) << listing.out;
  const auto holds = listed_lock(listing.json(), lease.name()).at("holds");
  ASSERT_EQ(holds.size(), 3u) << holds;
  for (const auto& hold : holds) {
    EXPECT_EQ(hold.at("acquisition_id"), lease.id()) << hold;
    EXPECT_EQ(hold.at("location").get<std::string>().rfind("127.0.0.1:", 0), 0u) << hold;
  }

  const auto released = run_distlock({"--url", url, "--json", "release", lease.name(), "--force"});
  ASSERT_EQ(released.code(), 0) << released.describe();
  EXPECT_EQ(released.json().at("released").size(), 3u) << released.out;
  EXPECT_EQ(lost.get_future().wait_for(30s), std::future_status::ready) << "on_lost never ran";
}

// Input the command refuses: a clear message and the documented exit code, nothing deleted.
TEST(DistlockCommandInput, UnknownSubcommandIsAUsageError) {
  const auto result = run_distlock({"lsit"});
  EXPECT_EQ(result.code(), 2) << result.describe();
  EXPECT_NE(result.err.find("unknown subcommand 'lsit'"), std::string::npos) << result.err;
}

TEST(DistlockCommandInput, EverySubcommandHasHelp) {
  for (const std::string subcommand : {"list", "show", "release", "watch", "where", "server"}) {
    const auto result = run_distlock({subcommand, "--help"});
    EXPECT_EQ(result.code(), 0) << result.describe();
    EXPECT_NE(result.out.find("Usage: distlock " + subcommand), std::string::npos) << result.out;
  }
  EXPECT_EQ(run_distlock({"--help"}).code(), 0);
}

TEST(DistlockCommandInput, BadUrlsAreUsageErrors) {
  const auto no_url = run_distlock({"list"});
  EXPECT_EQ(no_url.code(), 2) << no_url.describe();
  EXPECT_NE(no_url.err.find("DISTLOCK_URL"), std::string::npos) << no_url.err;

  const auto bad_scheme = run_distlock({"--url", "mysql://db:3306", "list"});
  EXPECT_EQ(bad_scheme.code(), 2) << bad_scheme.describe();
  EXPECT_NE(bad_scheme.err.find("unknown scheme 'mysql'"), std::string::npos) << bad_scheme.err;

  const auto garbage = run_distlock({"--url", "not a url", "list"});
  EXPECT_EQ(garbage.code(), 2) << garbage.describe();

  const auto memory = run_distlock({"--url", "memory://", "list"});
  EXPECT_EQ(memory.code(), 2) << memory.describe();
  EXPECT_NE(memory.err.find("another process cannot see"), std::string::npos) << memory.err;
}

TEST(DistlockCommandInput, AnUnreachableServerExitsWith3) {
  const std::string url = "redis://127.0.0.1:" + std::to_string(free_loopback_port());
  const auto result = run_distlock({"--url", url, "list"});
  EXPECT_EQ(result.code(), 3) << result.describe();
  EXPECT_NE(result.err.find(url), std::string::npos) << result.err;
}

TEST(DistlockCommandInput, WhereReadsTheLockInventory) {
  const TempDirectory directory;
  const std::string manifest = (directory.path() / "shop.distlock-locks.json").string();
  {
    std::ofstream file(manifest);
    file << R"json({"version": 1, "target": "shop", "functions": [
      {"name": "charge", "usr": "c:@F@charge", "type": "payment", "type_as_written": "\"payment\"",
       "ttl": "5s", "options": ["distlock::wait(2s)"],
       "keys": [{"parameter": "order", "index": 0, "path": "id"}],
       "file": "/src/payments.cpp", "line": 3, "column": 5, "calls": []},
      {"name": "refund", "usr": "c:@F@refund", "type": "payment", "type_as_written": "\"payment\"",
       "ttl": "5s", "options": [], "keys": [], "file": "/src/payments.cpp", "line": 9,
       "column": 5, "calls": []},
      {"name": "restock", "usr": "c:@F@restock", "type": "stock", "type_as_written": "\"stock\"",
       "ttl": "1s", "options": [], "keys": [], "file": "/src/stock.cpp", "line": 4, "column": 6,
       "calls": []}]})json";
  }
  const auto found = run_distlock({"--json", "where", "payment", "--manifest", manifest});
  ASSERT_EQ(found.code(), 0) << found.describe();
  const auto functions = found.json().at("functions");
  ASSERT_EQ(functions.size(), 2u);
  EXPECT_EQ(functions[0].at("name"), "charge");
  EXPECT_EQ(functions[0].at("file"), "/src/payments.cpp");
  EXPECT_EQ(functions[0].at("line"), 3);
  EXPECT_EQ(functions[1].at("name"), "refund");

  const auto text = run_distlock({"where", "stock", "--manifest", manifest});
  ASSERT_EQ(text.code(), 0) << text.describe();
  EXPECT_NE(text.out.find("/src/stock.cpp:4:6: restock"), std::string::npos) << text.out;

  const auto none = run_distlock({"where", "inventory", "--manifest", manifest});
  EXPECT_EQ(none.code(), 1) << none.describe();
  EXPECT_NE(none.err.find("'inventory'"), std::string::npos) << none.err;

  const auto missing = run_distlock({"where", "payment", "--manifest", manifest + ".gone"});
  EXPECT_EQ(missing.code(), 2) << missing.describe();
  EXPECT_NE(missing.err.find(".gone"), std::string::npos) << missing.err;

  const auto no_manifest = run_distlock({"where", "payment"});
  EXPECT_EQ(no_manifest.code(), 2) << no_manifest.describe();
}

}  // namespace
}  // namespace distlock::testing
