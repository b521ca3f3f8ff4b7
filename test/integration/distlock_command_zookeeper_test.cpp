// SPDX-License-Identifier: Apache-2.0
// The distlock command against a real ZooKeeper: list (exclusive, read, write, semaphore: the
// holders named by their nodes' data, fence = czxid), show (the waiters in their order),
// release (of a live holder, which then loses its lease; with an --id that does not hold), and
// a node written by another client (no data: a holder without a name).
#include <gtest/gtest.h>
#include <zookeeper/zookeeper.h>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "distlock_command.h"
#include "integration_helpers.h"
#include "zookeeper_client.h"
#include "zookeeper_helpers.h"
#include "zookeeper_server.h"
#include "zookeeper_suite.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

class DistlockCommandZooKeeper : public ZooKeeperSuiteTest {
 protected:
  CommandResult distlock(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--url", url()});
    return run_distlock(args);
  }
  nlohmann::json list_json(const std::string& pattern) const {
    const auto result = distlock({"--json", "list", pattern});
    EXPECT_EQ(result.code(), 0) << result.describe();
    return result.json();
  }
  nlohmann::json shown(const std::string& name) const {
    const auto result = distlock({"--json", "show", name});
    return result.code() == 0 ? result.json().at("lock") : nlohmann::json();
  }
  std::size_t waiters_of(const std::string& name) const {
    const auto lock = shown(name);
    return lock.is_null() ? 0 : lock.at("waiters").size();
  }

  const std::string type_ = unique_name("cmd");
};

TEST_F(DistlockCommandZooKeeper, ListsEveryLockKindWithItsHolder) {
  const auto client = connect();
  const auto other = connect();
  const Lease exclusive = client->acquire(spec(std::string_view(type_), 4s), "x");
  Lease reader = client->acquire(spec(std::string_view(type_), 4s, distlock::read), "rw");
  Lease second_reader = other->acquire(spec(std::string_view(type_), 4s, distlock::read), "rw");
  const Lease permit =
      client->acquire(spec(std::string_view(type_), 4s, distlock::permits(2)), "sem");
  const Lease second_permit =
      other->acquire(spec(std::string_view(type_), 4s, distlock::permits(2)), "sem");
  // A writer waits behind the readers: a waiter of the read-write lock.
  std::thread writer([&] {
    Lease lease = other->acquire(
        spec(std::string_view(type_), 4s, distlock::write, distlock::wait(60s)), "rw");
  });
  ASSERT_TRUE(eventually([&] { return waiters_of(reader.name()) == 1; }))
      << "the writer never showed as waiting";

  const auto listing = list_json(type_ + ":*");
  // The query (?session_timeout=...) is left out: a query value may be a secret.
  EXPECT_EQ(listing.at("server"), server().url());
  const auto exclusive_hold =
      expect_holder(listed_lock(listing, exclusive.name()), exclusive, "exclusive");
  ASSERT_FALSE(exclusive_hold.is_null());
  EXPECT_TRUE(exclusive_hold.at("time_left_ms").is_null()) << "a ZooKeeper hold lasts its session";
  EXPECT_EQ(exclusive_hold.at("location").get<std::string>().rfind(zk_lock_path(type_, "x"), 0), 0u)
      << exclusive_hold;
  const auto read_write = listed_lock(listing, reader.name());
  expect_holder(read_write, reader, "read");
  expect_holder(read_write, second_reader, "read");
  ASSERT_EQ(read_write.at("waiters").size(), 1u) << read_write;
  EXPECT_EQ(read_write.at("waiters")[0].at("kind"), "write");
  EXPECT_EQ(read_write.at("waiters")[0].at("pid").get<long long>(), ::getpid());
  const auto semaphore = listed_lock(listing, permit.name());
  expect_holder(semaphore, permit, "semaphore");
  expect_holder(semaphore, second_permit, "semaphore");

  // The readers go: the writer is granted, and nothing waits any more.
  reader.release();
  second_reader.release();
  writer.join();
}

TEST_F(DistlockCommandZooKeeper, LeaderShowsTheLeadersLatchNodeAndTheCampaignersInLine) {
  const std::string name = unique_name("election");
  const auto client = connect();
  const auto other = connect();
  Leadership term = client->campaign(election(std::string_view(name), 30s));
  auto next = std::async(std::launch::async, [&] {
    return other->campaign(election(std::string_view(name), 30s, wait(30s)));
  });
  ASSERT_TRUE(eventually([&] { return other->stats().waiting == 1; }));
  const auto json = distlock({"--json", "leader", name});
  ASSERT_EQ(json.code(), 0) << json.describe();
  const nlohmann::json document = json.json();
  EXPECT_EQ(document.at("leader").at("fence").get<std::uint64_t>(), term.epoch()) << document;
  EXPECT_EQ(document.at("campaigners_waiting"), 1) << document;
  EXPECT_NE(document.at("leader").at("location").get<std::string>().find("-latch-"),
            std::string::npos)
      << document;
  term.resign();
  EXPECT_GT(next.get().epoch(), term.epoch());
}

TEST_F(DistlockCommandZooKeeper, ShowGivesTheWaitersInTheirOrder) {
  const auto client = connect();
  const LockSpec lock_spec = spec(std::string_view(type_), 4s, distlock::wait(60s));
  std::optional<Lease> holder = client->acquire(lock_spec, "queue");
  const std::string name = holder->name();
  std::promise<std::string> first_id;
  std::promise<std::string> second_id;
  std::promise<void> first_may_release;
  std::thread first([&] {
    Lease lease = client->acquire(lock_spec, "queue");
    first_id.set_value(lease.id());
    first_may_release.get_future().wait();
  });
  ASSERT_TRUE(eventually([&] { return waiters_of(name) == 1; }));
  std::thread second([&] {
    Lease lease = client->acquire(lock_spec, "queue");
    second_id.set_value(lease.id());
  });
  ASSERT_TRUE(eventually([&] { return waiters_of(name) == 2; }));

  const auto lock = shown(name);
  expect_holder(lock, *holder, "exclusive");
  const auto waiters = lock.at("waiters");
  ASSERT_EQ(waiters.size(), 2u) << lock;
  const auto text = distlock({"show", name});
  EXPECT_NE(text.out.find("waiters, in order"), std::string::npos) << text.describe();

  holder.reset();
  EXPECT_EQ(waiters[0].at("acquisition_id"), first_id.get_future().get());
  first_may_release.set_value();
  first.join();
  EXPECT_EQ(waiters[1].at("acquisition_id"), second_id.get_future().get());
  second.join();
}

TEST_F(DistlockCommandZooKeeper, ForceReleaseMakesALiveHolderLoseItsLease) {
  expect_force_release_ends_a_live_lease(*connect(), *connect(), spec(std::string_view(type_), 3s),
                                         [this](auto args) { return distlock(std::move(args)); });
}

TEST_F(DistlockCommandZooKeeper, ReleaseWithAnotherAcquisitionIdReleasesNothing) {
  const auto client = connect();
  const Lease lease = client->acquire(spec(std::string_view(type_), 4s), "kept");
  expect_release_of_another_id_keeps(lease,
                                     [this](auto args) { return distlock(std::move(args)); });
  expect_holder(shown(lease.name()), lease, "exclusive");

  const auto without_force = distlock({"release", lease.name()});
  EXPECT_EQ(without_force.code(), 2) << without_force.describe();
  expect_holder(shown(lease.name()), lease, "exclusive");
}

TEST_F(DistlockCommandZooKeeper, WatchShowsWhatIsHeldAndWaitedFor) {
  const auto client = connect();
  const LockSpec lock_spec = spec(std::string_view(type_), 4s, distlock::wait(60s));
  std::optional<Lease> holder = client->acquire(lock_spec, "watched");
  const std::string name = holder->name();
  std::thread waiter([&] { Lease lease = client->acquire(lock_spec, "watched"); });
  ASSERT_TRUE(eventually([&] { return waiters_of(name) == 1; }));

  const auto result = distlock({"--json", "watch", name, "--count", "1"});
  ASSERT_EQ(result.code(), 0) << result.describe();
  std::vector<nlohmann::json> events;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) events.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(events.size(), 2u) << result.out;
  EXPECT_EQ(events[0].at("event"), "grant");
  EXPECT_EQ(events[0].at("acquisition_id"), holder->id());
  EXPECT_EQ(events[1].at("event"), "wait");
  EXPECT_EQ(events[1].at("name"), name);

  holder.reset();
  waiter.join();
}

TEST_F(DistlockCommandZooKeeper, ANodeWithoutDataIsAHolderWithoutAName) {
  // As Curator or a hand-made node leaves it: a contender name, no distlock data.
  ZooKeeperClient raw(server_->connect_string());
  if (!raw.stat("/distlock")) raw.create("/distlock");
  raw.create(zk_lock_path(type_));
  const std::string path = zk_lock_path(type_) + "/_c_00000000-0000-4000-8000-000000000000-lock-";
  raw.create(path, "", ZOO_EPHEMERAL | ZOO_SEQUENCE);

  const auto lock = listed_lock(list_json(type_), type_);
  ASSERT_FALSE(lock.is_null());
  ASSERT_EQ(lock.at("holds").size(), 1u) << lock;
  EXPECT_TRUE(lock.at("holds")[0].at("acquisition_id").is_null()) << lock;
  EXPECT_TRUE(lock.at("holds")[0].at("pid").is_null()) << lock;

  const auto released = distlock({"--json", "release", type_, "--force"});
  ASSERT_EQ(released.code(), 0) << released.describe();
  EXPECT_EQ(released.json().at("released").size(), 1u);
  EXPECT_TRUE(listed_lock(list_json(type_), type_).is_null());
}

TEST_F(DistlockCommandZooKeeper, ServerSaysEvictionDoesNotApply) {
  const auto result = distlock({"--json", "server"});
  ASSERT_EQ(result.code(), 0) << result.describe();
  const auto servers = result.json().at("servers");
  ASSERT_EQ(servers.size(), 1u) << servers;
  EXPECT_EQ(servers[0].at("kind"), "zookeeper");
  EXPECT_EQ(servers[0].at("eviction"), "not_applicable");
  EXPECT_TRUE(servers[0].at("maxmemory_policy").is_null()) << servers[0];

  const auto text = distlock({"server"});
  ASSERT_EQ(text.code(), 0) << text.describe();
  EXPECT_NE(text.out.find("eviction: does not apply"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace distlock::testing
