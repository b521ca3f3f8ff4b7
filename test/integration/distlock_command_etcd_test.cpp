// SPDX-License-Identifier: Apache-2.0
// The distlock command against a real etcd: list (exclusive, read, write, semaphore: the holders
// named by their keys' values, fence = create revision, time left = the lease's), show (the
// waiters in their order; a semaphore's waiters), release (of a live holder, which then loses
// its lease; with an --id that does not hold), an `etcdctl lock` holder (no value: a holder
// without a name), and the member's version.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "distlock_command.h"
#include "etcd_server.h"
#include "integration_helpers.h"
#include "loopback_socket.h"
#include "subprocess.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

class DistlockCommandEtcd : public ::testing::Test {
 protected:
  static void TearDownTestSuite() { server_.stop(); }
  void SetUp() override {
    try {
      url_ = server_.get().url();
    } catch (const std::exception& e) {
      FAIL() << "cannot start etcd: " << e.what();
    }
  }
  std::shared_ptr<Client> connect() const { return Client::connect(url_); }
  CommandResult distlock(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--url", url_});
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

  static inline SuiteService<EtcdServer> server_;
  std::string url_;
  const std::string type_ = unique_name("cmd");
};

TEST_F(DistlockCommandEtcd, ListsEveryLockKindWithItsHolder) {
  const auto client = connect();
  const auto other = connect();
  const Lease exclusive = client->acquire(spec(std::string_view(type_), 4s), "x");
  Lease reader = client->acquire(spec(std::string_view(type_), 4s, distlock::read), "rw");
  Lease second_reader = other->acquire(spec(std::string_view(type_), 4s, distlock::read), "rw");
  Lease permit = client->acquire(spec(std::string_view(type_), 4s, distlock::permits(2)), "sem");
  const Lease second_permit =
      other->acquire(spec(std::string_view(type_), 4s, distlock::permits(2)), "sem");
  // A writer waits behind the readers; a third permit behind the two.
  std::thread writer([&] {
    Lease lease = other->acquire(
        spec(std::string_view(type_), 4s, distlock::write, distlock::wait(60s)), "rw");
  });
  std::thread third_permit([&] {
    Lease lease = other->acquire(
        spec(std::string_view(type_), 4s, distlock::permits(2), distlock::wait(60s)), "sem");
  });
  ASSERT_TRUE(eventually([&] { return waiters_of(reader.name()) == 1; }))
      << "the writer never showed as waiting";
  ASSERT_TRUE(eventually([&] { return waiters_of(permit.name()) == 1; }))
      << "the third permit never showed as waiting";

  const auto listing = list_json(type_ + ":*");
  EXPECT_EQ(listing.at("server"), url_);
  const auto exclusive_hold = expect_holder(listed_lock(listing, exclusive.name()), exclusive,
                                            "exclusive", AcquiredAt::unknown);
  ASSERT_FALSE(exclusive_hold.is_null());
  const auto time_left = exclusive_hold.at("time_left_ms").get<long long>();
  EXPECT_GT(time_left, 0) << exclusive_hold;
  EXPECT_LE(time_left, 4000) << exclusive_hold;
  EXPECT_EQ(exclusive_hold.at("location").get<std::string>().rfind("/distlock/" + type_ + "/x/", 0),
            0u)
      << exclusive_hold;
  const auto read_write = listed_lock(listing, reader.name());
  expect_holder(read_write, reader, "read", AcquiredAt::unknown);
  expect_holder(read_write, second_reader, "read", AcquiredAt::unknown);
  ASSERT_EQ(read_write.at("waiters").size(), 1u) << read_write;
  EXPECT_EQ(read_write.at("waiters")[0].at("kind"), "write");
  EXPECT_EQ(read_write.at("waiters")[0].at("pid").get<long long>(), ::getpid());
  const auto semaphore = listed_lock(listing, permit.name());
  expect_holder(semaphore, permit, "semaphore", AcquiredAt::unknown);
  expect_holder(semaphore, second_permit, "semaphore", AcquiredAt::unknown);
  ASSERT_EQ(semaphore.at("holds").size(), 2u) << "the waiter's counted permit key shows as held";
  ASSERT_EQ(semaphore.at("waiters").size(), 1u) << semaphore;
  EXPECT_EQ(semaphore.at("waiters")[0].at("kind"), "semaphore");

  // The readers and a permit go: the writer and the third permit are granted.
  reader.release();
  second_reader.release();
  writer.join();
  permit.release();
  third_permit.join();
}

TEST_F(DistlockCommandEtcd, ShowGivesTheWaitersInTheirOrder) {
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
  expect_holder(lock, *holder, "exclusive", AcquiredAt::unknown);
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

TEST_F(DistlockCommandEtcd, ForceReleaseMakesALiveHolderLoseItsLease) {
  expect_force_release_ends_a_live_lease(*connect(), *connect(), spec(std::string_view(type_), 3s),
                                         [this](auto args) { return distlock(std::move(args)); });
}

TEST_F(DistlockCommandEtcd, ReleaseWithAnotherAcquisitionIdReleasesNothing) {
  const auto client = connect();
  const Lease lease = client->acquire(spec(std::string_view(type_), 4s), "kept");
  expect_release_of_another_id_keeps(lease,
                                     [this](auto args) { return distlock(std::move(args)); });
  expect_holder(shown(lease.name()), lease, "exclusive", AcquiredAt::unknown);

  const auto without_force = distlock({"release", lease.name()});
  EXPECT_EQ(without_force.code(), 2) << without_force.describe();
  expect_holder(shown(lease.name()), lease, "exclusive", AcquiredAt::unknown);
}

TEST_F(DistlockCommandEtcd, AnEtcdctlLockHolderIsAHolderWithoutAName) {
  // etcdctl's Mutex key holds no value.
  const auto held = server_.get().start_etcdctl({"lock", "/distlock/" + type_});
  ASSERT_TRUE(eventually([&] { return !listed_lock(list_json(type_), type_).is_null(); }))
      << "etcdctl's lock never showed";
  const auto lock = listed_lock(list_json(type_), type_);
  ASSERT_EQ(lock.at("holds").size(), 1u) << lock;
  EXPECT_TRUE(lock.at("holds")[0].at("acquisition_id").is_null()) << lock;
  EXPECT_TRUE(lock.at("holds")[0].at("pid").is_null()) << lock;

  const auto released = distlock({"--json", "release", type_, "--force"});
  ASSERT_EQ(released.code(), 0) << released.describe();
  EXPECT_EQ(released.json().at("released").size(), 1u);
  EXPECT_TRUE(listed_lock(list_json(type_), type_).is_null());
}

TEST_F(DistlockCommandEtcd, WatchShowsWhatIsHeldAndWaitedFor) {
  const auto client = connect();
  const LockSpec lock_spec = spec(std::string_view(type_), 4s, distlock::wait(60s));
  std::optional<Lease> holder = client->acquire(lock_spec, "watched");
  const std::string name = holder->name();
  std::thread waiter([&] { Lease lease = client->acquire(lock_spec, "watched"); });
  ASSERT_TRUE(eventually([&] { return waiters_of(name) == 1; }));

  const auto result = distlock({"--json", "watch", name, "--count", "1"});
  ASSERT_EQ(result.code(), 0) << result.describe();
  EXPECT_NE(result.out.find("\"event\":\"grant\""), std::string::npos) << result.out;
  EXPECT_NE(result.out.find(holder->id()), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("\"event\":\"wait\""), std::string::npos) << result.out;

  holder.reset();
  waiter.join();
}

TEST(DistlockCommandEtcdInput, AnUnreachableMemberExitsWith3NamingIt) {
  const std::string url = "etcd://127.0.0.1:" + std::to_string(free_loopback_port());
  const auto result = run_distlock({"--url", url + "?connect_timeout=1s", "list"});
  EXPECT_EQ(result.code(), 3) << result.describe();
  EXPECT_NE(result.err.find(url), std::string::npos) << result.err;
}

TEST_F(DistlockCommandEtcd, ServerSaysItsVersionAndThatEvictionDoesNotApply) {
  const auto result = distlock({"--json", "server"});
  ASSERT_EQ(result.code(), 0) << result.describe();
  const auto servers = result.json().at("servers");
  ASSERT_EQ(servers.size(), 1u) << servers;
  EXPECT_EQ(servers[0].at("kind"), "etcd");
  EXPECT_EQ(servers[0].at("version").get<std::string>().rfind("3.", 0), 0u) << servers[0];
  EXPECT_EQ(servers[0].at("eviction"), "not_applicable");

  const auto text = distlock({"server"});
  ASSERT_EQ(text.code(), 0) << text.describe();
  EXPECT_NE(text.out.find("etcd 3."), std::string::npos) << text.out;
}

}  // namespace
}  // namespace distlock::testing
