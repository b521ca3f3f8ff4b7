// SPDX-License-Identifier: Apache-2.0
// The distlock command and admin::LockAdmin against a private PostgreSQL server: list (every
// lock kind a real client holds, reentry counted, waiting writers and fair places as waiters,
// expired rows left out), show (a fair lock's queue in order), release (of a live holder, which
// then loses its lease; every waiter kind woken at once, as by a release; one acquisition of
// several; a lock kept by hold_at_least), watch, server, and the URL's lock_table (another
// table, a bad name, a table that is not there). Output is read as an operator's script would:
// --json, parsed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <initializer_list>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <distlock/admin.h>
#include <distlock/distlock.h>

#include "distlock_command.h"
#include "holder_thread.h"
#include "integration_helpers.h"
#include "postgres_server.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

class DistlockCommandPostgres : public ::testing::Test {
 protected:
  static void TearDownTestSuite() { server_.stop(); }
  void SetUp() override {
    try {
      url_ = server_.get().url();
    } catch (const std::exception& e) {
      FAIL() << "cannot start PostgreSQL: " << e.what();
    }
  }

  PostgresServer& server() { return server_.get(); }
  std::shared_ptr<Client> connect() const { return Client::connect(url_); }
  CommandResult distlock(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--url", url_});
    return run_distlock(args);
  }
  nlohmann::json list_json(const std::string& pattern = {}) const {
    std::vector<std::string> args = {"--json", "list"};
    if (!pattern.empty()) args.push_back(pattern);
    const auto result = distlock(args);
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
  // The server as messages name it: the user hidden, no query.
  std::string server_name() const {
    return "postgresql://***@127.0.0.1:" + std::to_string(server_.get().port()) + "/postgres";
  }

  static inline SuiteService<PostgresServer> server_;
  std::string url_;
  const std::string type_ = unique_name("cmd");
};

// As expect_holder, and the hold expires by the server's clock: its time left is the ttl at
// most.
nlohmann::json expect_postgres_hold(const nlohmann::json& lock, const Lease& lease,
                                    const std::string& kind) {
  const auto hold = expect_holder(lock, lease, kind);
  if (hold.is_null()) return hold;
  EXPECT_GT(hold.at("time_left_ms").get<long long>(), 0) << hold;
  EXPECT_LE(hold.at("time_left_ms").get<long long>(), lease.ttl().count()) << hold;
  EXPECT_FALSE(hold.at("kept").get<bool>()) << hold;
  return hold;
}

TEST_F(DistlockCommandPostgres, ListsEveryLockKindWithItsHolder) {
  const auto client = connect();
  const auto other = connect();
  const Lease exclusive = client->acquire(spec(std::string_view(type_ + "x"), 30s), "a");
  const Lease reentered = client->acquire(spec(std::string_view(type_ + "x"), 30s), "a");
  std::optional<Lease> reader =
      client->acquire(spec(std::string_view(type_ + "rw"), 30s, distlock::read), "r");
  std::optional<Lease> second_reader =
      other->acquire(spec(std::string_view(type_ + "rw"), 30s, distlock::read), "r");
  const Lease writer =
      client->acquire(spec(std::string_view(type_ + "w"), 30s, distlock::write), "w");
  const Lease permit =
      client->acquire(spec(std::string_view(type_ + "sem"), 30s, distlock::permits(2)), "p");
  const Lease second_permit =
      other->acquire(spec(std::string_view(type_ + "sem"), 30s, distlock::permits(2)), "p");
  std::optional<Lease> fair_holder =
      client->acquire(spec(std::string_view(type_ + "fair"), 30s, distlock::fair), "f");
  // A fair place and a waiting writer's mark are rows: waiters the server knows.
  const Holder fair_waiter(
      *other, spec(std::string_view(type_ + "fair"), 30s, distlock::fair, distlock::wait(30s)),
      "f");
  const Holder waiting_writer(
      *other, spec(std::string_view(type_ + "rw"), 30s, distlock::write, distlock::wait(30s)), "r");
  ASSERT_TRUE(eventually([&] { return waiters_of(fair_holder->name()) == 1; }))
      << "the fair waiter never showed in the queue";
  ASSERT_TRUE(eventually([&] { return waiters_of(reader->name()) == 1; }))
      << "the writer never showed as waiting";

  const auto listing = list_json();
  EXPECT_EQ(listing.at("server"), server_name());
  const auto exclusive_hold =
      expect_postgres_hold(listed_lock(listing, exclusive.name()), exclusive, "exclusive");
  ASSERT_FALSE(exclusive_hold.is_null());
  EXPECT_EQ(exclusive_hold.at("count"), 2) << "the reentry is one more hold of the row";
  EXPECT_EQ(exclusive_hold.at("location"), "distlock_locks " + exclusive.name());

  const auto read_write = listed_lock(listing, reader->name());
  const auto read_hold = expect_postgres_hold(read_write, *reader, "read");
  expect_postgres_hold(read_write, *second_reader, "read");
  ASSERT_FALSE(read_hold.is_null());
  EXPECT_EQ(read_hold.at("location"),
            "distlock_locks_holds " + reader->name() + " " + reader->id());
  ASSERT_EQ(read_write.at("waiters").size(), 1u) << read_write;
  EXPECT_EQ(read_write.at("waiters")[0].at("kind"), "write");
  EXPECT_EQ(read_write.at("waiters")[0].at("pid").get<long long>(), ::getpid());
  EXPECT_EQ(read_write.at("waiters")[0]
                .at("location")
                .get<std::string>()
                .rfind("distlock_locks_holds " + reader->name() + " ", 0),
            0u);

  expect_postgres_hold(listed_lock(listing, writer.name()), writer, "write");
  const auto semaphore = listed_lock(listing, permit.name());
  expect_postgres_hold(semaphore, permit, "semaphore");
  expect_postgres_hold(semaphore, second_permit, "semaphore");
  const auto fair_lock = listed_lock(listing, fair_holder->name());
  expect_postgres_hold(fair_lock, *fair_holder, "fair");
  ASSERT_EQ(fair_lock.at("waiters").size(), 1u) << fair_lock;
  EXPECT_EQ(fair_lock.at("waiters")[0].at("kind"), "fair");
  EXPECT_FALSE(fair_lock.at("waiters")[0].at("acquisition_id").is_null()) << fair_lock;

  // The glob is the client's, after the server narrowed by its literal start.
  const auto narrowed = list_json(type_ + "?w:*");
  ASSERT_EQ(narrowed.at("locks").size(), 1u) << narrowed;
  EXPECT_FALSE(listed_lock(narrowed, reader->name()).is_null());

  // The table for people names every lock and its holder.
  const auto table = distlock({"list"});
  ASSERT_EQ(table.code(), 0) << table.describe();
  EXPECT_NE(table.out.find("KIND"), std::string::npos) << table.out;
  for (const Lease* lease : std::initializer_list<const Lease*>{
           &exclusive, &*reader, &writer, &permit, &second_permit, &*fair_holder})
    EXPECT_NE(table.out.find(lease->id()), std::string::npos) << table.out;

  // The waiters are granted once the holders go.
  fair_holder.reset();
  EXPECT_TRUE(fair_waiter.granted_within(20s));
  reader.reset();
  second_reader.reset();
  EXPECT_TRUE(waiting_writer.granted_within(20s));
}

TEST_F(DistlockCommandPostgres, ShowGivesAFairLocksWaitersInTheirOrder) {
  const auto client = connect();
  const LockSpec fair_spec =
      spec(std::string_view(type_), 30s, distlock::fair, distlock::wait(30s));
  std::optional<Lease> holder = client->acquire(fair_spec, "queue");
  const std::string name = holder->name();
  // Each waiter joins after the one before is in the queue: their order is known.
  std::promise<std::string> first_id;
  std::promise<std::string> second_id;
  std::promise<void> first_may_release;
  std::thread first([&] {
    Lease lease = client->acquire(fair_spec, "queue");
    first_id.set_value(lease.id());
    first_may_release.get_future().wait();
  });
  ASSERT_TRUE(eventually([&] { return waiters_of(name) == 1; }));
  std::thread second([&] {
    Lease lease = client->acquire(fair_spec, "queue");
    second_id.set_value(lease.id());
  });
  ASSERT_TRUE(eventually([&] { return waiters_of(name) == 2; }));

  const auto lock = shown(name);
  EXPECT_EQ(lock.at("name"), name);
  expect_postgres_hold(lock, *holder, "fair");
  const auto waiters = lock.at("waiters");
  ASSERT_EQ(waiters.size(), 2u) << lock;
  const auto text = distlock({"show", name});
  ASSERT_EQ(text.code(), 0) << text.describe();
  EXPECT_NE(text.out.find("waiters, in order"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("at distlock_locks " + name), std::string::npos) << text.out;

  holder.reset();  // released: the first in the queue is granted
  EXPECT_EQ(waiters[0].at("acquisition_id"), first_id.get_future().get());
  first_may_release.set_value();
  first.join();
  EXPECT_EQ(waiters[1].at("acquisition_id"), second_id.get_future().get());
  second.join();

  const auto gone = distlock({"show", name});
  EXPECT_EQ(gone.code(), 1) << gone.describe();
  EXPECT_NE(gone.err.find(server_name()), std::string::npos) << gone.err;
}

TEST_F(DistlockCommandPostgres, ForceReleaseMakesALiveHolderLoseItsLease) {
  // Renewed every ~0.7 s.
  expect_force_release_ends_a_live_lease(*connect(), *connect(), spec(std::string_view(type_), 2s),
                                         [this](auto args) { return distlock(std::move(args)); });
}

// A force-release notifies as a release does, so a waiter asks again at once. Without the
// notification each would sleep until the holder's lease ran out (90 s), or until its next try
// to keep its place (a fair waiter, a writer: a third of its ttl, 30 s).
TEST_F(DistlockCommandPostgres, ForceReleaseWakesEveryKindOfWaiterAtOnce) {
  struct Case {
    const char* kind;
    LockSpec holding;
    LockSpec waiting;
  };
  const std::string type = type_;
  const Case cases[] = {
      {"exclusive", spec(std::string_view(type + "x"), 90s),
       spec(std::string_view(type + "x"), 90s, distlock::wait(60s))},
      {"fair", spec(std::string_view(type + "fair"), 90s, distlock::fair),
       spec(std::string_view(type + "fair"), 90s, distlock::fair, distlock::wait(60s))},
      {"write", spec(std::string_view(type + "rw"), 90s, distlock::write),
       spec(std::string_view(type + "rw"), 90s, distlock::read, distlock::wait(60s))},
      {"read", spec(std::string_view(type + "wr"), 90s, distlock::read),
       spec(std::string_view(type + "wr"), 90s, distlock::write, distlock::wait(60s))},
      {"semaphore", spec(std::string_view(type + "sem"), 90s, distlock::permits(1)),
       spec(std::string_view(type + "sem"), 90s, distlock::permits(1), distlock::wait(60s))},
  };
  for (const auto& one : cases) {
    SCOPED_TRACE(one.kind);
    const auto holder_client = connect();
    const auto waiter_client = connect();
    const Lease held = holder_client->acquire(one.holding, "k");
    const Holder waiter(*waiter_client, one.waiting, "k");
    ASSERT_TRUE(eventually([&] { return waiter_client->stats().waiting == 1; }));
    const auto start = std::chrono::steady_clock::now();
    const auto released = distlock({"--json", "release", held.name(), "--force"});
    ASSERT_EQ(released.code(), 0) << released.describe();
    ASSERT_EQ(released.json().at("released").size(), 1u) << released.out;
    EXPECT_EQ(released.json().at("released")[0].at("kind"), one.kind);
    ASSERT_TRUE(waiter.granted_within(20s)) << "the waiter was not woken";
    EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
    EXPECT_GT(waiter.fence(), held.fence()) << "the fence sequence went back";
  }
}

TEST_F(DistlockCommandPostgres, ReleaseOfOneAcquisitionLeavesTheOthers) {
  const auto client = connect();
  const auto other = connect();
  const LockSpec reading = spec(std::string_view(type_), 30s, distlock::read);
  const Lease first = client->acquire(reading, "shared");
  const Lease second = other->acquire(reading, "shared");
  expect_release_of_another_id_keeps(first,
                                     [this](auto args) { return distlock(std::move(args)); });

  const auto matching =
      distlock({"--json", "release", first.name(), "--force", "--id", first.id()});
  ASSERT_EQ(matching.code(), 0) << matching.describe();
  const auto released = matching.json().at("released");
  ASSERT_EQ(released.size(), 1u) << released;
  EXPECT_EQ(released[0].at("acquisition_id"), first.id());
  EXPECT_EQ(released[0].at("kind"), "read");
  EXPECT_EQ(released[0].at("fence").get<std::uint64_t>(), first.fence());

  const auto lock = listed_lock(list_json(), first.name());
  ASSERT_EQ(lock.at("holds").size(), 1u) << lock;
  expect_postgres_hold(lock, second, "read");

  // The text names what went, on stderr.
  const auto text = distlock({"release", second.name(), "--force", "--id", second.id()});
  ASSERT_EQ(text.code(), 0) << text.describe();
  EXPECT_NE(text.err.find("force-released the read hold of id=" + second.id()), std::string::npos)
      << text.err;
  EXPECT_NE(text.err.find(server_name()), std::string::npos) << text.err;
  EXPECT_TRUE(listed_lock(list_json(), first.name()).is_null());
}

TEST_F(DistlockCommandPostgres, ALockKeptByHoldAtLeastShowsAsKeptUntilForceReleased) {
  const auto client = connect();
  const auto other = connect();
  const LockSpec kept_spec = spec(std::string_view(type_), 30s, distlock::hold_at_least(60s));
  std::optional<Lease> lease = client->acquire(kept_spec, "kept");
  const std::string name = lease->name();
  lease.reset();
  ASSERT_FALSE(other->try_acquire(spec(std::string_view(type_), 30s), "kept").has_value());

  const auto lock = shown(name);
  ASSERT_FALSE(lock.is_null());
  ASSERT_EQ(lock.at("holds").size(), 1u) << lock;
  const auto hold = lock.at("holds")[0];
  EXPECT_TRUE(hold.at("kept").get<bool>()) << hold;
  EXPECT_TRUE(hold.at("acquisition_id").is_null()) << hold;
  EXPECT_EQ(hold.at("pid").get<long long>(), ::getpid()) << hold;
  const auto table = distlock({"list", name});
  EXPECT_NE(table.out.find("(kept)"), std::string::npos) << table.out;

  const auto released = distlock({"--json", "release", name, "--force"});
  ASSERT_EQ(released.code(), 0) << released.describe();
  ASSERT_EQ(released.json().at("released").size(), 1u) << released.out;
  EXPECT_TRUE(released.json().at("released")[0].at("kept").get<bool>()) << released.out;
  EXPECT_TRUE(other->try_acquire(spec(std::string_view(type_), 30s), "kept").has_value());
}

TEST_F(DistlockCommandPostgres, ExpiredRowsAreLeftOut) {
  (void)connect();  // makes the tables
  // Rows of holders that died, not yet deleted by a statement on their names, beside live ones.
  const auto insert_lock = [&](const std::string& name, const std::string& expiry) {
    server().psql(
        "INSERT INTO distlock_locks (name, owner, fence, holds, holder, expires_at) VALUES ('" +
        name + "', 'owner', 1, ARRAY['id-of-" + name + "'], 'host 1 1', clock_timestamp() " +
        expiry + ")");
  };
  const auto insert_hold = [&](const std::string& name, const std::string& kind,
                               const std::string& expiry) {
    server().psql(
        "INSERT INTO distlock_locks_holds (name, id, kind, owner, fence, place, holder, "
        "expires_at) VALUES ('" +
        name + "', 'id-of-" + name + "', '" + kind + "', 'owner', 2, NULL, 'host 1 1', " +
        "clock_timestamp() " + expiry + ")");
  };
  insert_lock(type_ + ":gone", "- interval '1 second'");
  insert_lock(type_ + ":live", "+ interval '60 seconds'");
  insert_hold(type_ + ":gone_reader", "read", "- interval '1 second'");
  insert_hold(type_ + ":live_reader", "read", "+ interval '60 seconds'");
  insert_hold(type_ + ":gone_place", "queued", "- interval '1 second'");

  const auto listing = list_json(type_ + ":*");
  ASSERT_EQ(listing.at("locks").size(), 2u) << listing;
  EXPECT_FALSE(listed_lock(listing, type_ + ":live").is_null()) << listing;
  EXPECT_FALSE(listed_lock(listing, type_ + ":live_reader").is_null()) << listing;
  EXPECT_EQ(distlock({"show", type_ + ":gone"}).code(), 1);

  const auto nothing = distlock({"release", type_ + ":gone", "--force"});
  EXPECT_EQ(nothing.code(), 1) << nothing.describe();
  EXPECT_NE(nothing.err.find("nobody holds"), std::string::npos) << nothing.err;
  EXPECT_EQ(server().psql("SELECT count(*) FROM distlock_locks WHERE name = '" + type_ + ":gone'"),
            "1")
      << "an expired row is nobody's hold to release";
}

TEST_F(DistlockCommandPostgres, WatchShowsWhatIsHeldAndWaitedFor) {
  const auto client = connect();
  const LockSpec writing = spec(std::string_view(type_), 30s, distlock::write, distlock::wait(30s));
  std::optional<Lease> holder =
      client->acquire(spec(std::string_view(type_), 30s, distlock::read), "watched");
  const std::string name = holder->name();
  const Holder writer(*client, writing, "watched");
  ASSERT_TRUE(eventually([&] { return waiters_of(name) == 1; }));

  const auto result = distlock({"--json", "watch", name, "--count", "1"});
  ASSERT_EQ(result.code(), 0) << result.describe();
  std::vector<nlohmann::json> events;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) events.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(events.size(), 2u) << result.out;
  EXPECT_EQ(events[0].at("event"), "grant");
  EXPECT_EQ(events[0].at("kind"), "read");
  EXPECT_EQ(events[0].at("acquisition_id"), holder->id());
  EXPECT_EQ(events[1].at("event"), "wait");
  EXPECT_EQ(events[1].at("kind"), "write");
  EXPECT_EQ(events[1].at("name"), name);

  holder.reset();
  EXPECT_TRUE(writer.granted_within(20s));
}

TEST_F(DistlockCommandPostgres, ServerNamesTheVersionAndThatEvictionDoesNotApply) {
  const auto result = distlock({"--json", "server"});
  ASSERT_EQ(result.code(), 0) << result.describe();
  const auto servers = result.json().at("servers");
  ASSERT_EQ(servers.size(), 1u) << servers;
  const auto facts = servers[0];
  EXPECT_EQ(facts.at("server"), server_name());
  EXPECT_EQ(facts.at("kind"), "postgresql");
  const std::string version = server().psql("SHOW server_version");
  EXPECT_EQ(facts.at("version"), version);
  EXPECT_EQ(facts.at("eviction"), "not_applicable");
  EXPECT_TRUE(facts.at("maxmemory").is_null()) << facts;

  const auto text = distlock({"server"});
  ASSERT_EQ(text.code(), 0) << text.describe();
  EXPECT_NE(text.out.find("PostgreSQL " + version), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("eviction: does not apply"), std::string::npos) << text.out;
}

// The table is named by a reserved word, which the listing's statements quote as the locks' do.
TEST_F(DistlockCommandPostgres, TheUrlsLockTableIsTheOneRead) {
  const std::string tabled_url = url_ + "?lock_table=order&command_timeout=2s";
  const Lease lease =
      Client::connect(tabled_url)->acquire(spec(std::string_view(type_), 30s), "tabled");
  const auto tabled = run_distlock({"--url", tabled_url, "--json", "show", lease.name()});
  ASSERT_EQ(tabled.code(), 0) << tabled.describe();
  const auto hold = expect_postgres_hold(tabled.json().at("lock"), lease, "exclusive");
  ASSERT_FALSE(hold.is_null());
  EXPECT_EQ(hold.at("location"), "order " + lease.name());
  EXPECT_EQ(distlock({"show", lease.name()}).code(), 1) << "the default table has it";

  // postgres:// is the same URL.
  const auto short_scheme =
      run_distlock({"--url", "postgres" + tabled_url.substr(std::string("postgresql").size()),
                    "--json", "list"});
  ASSERT_EQ(short_scheme.code(), 0) << short_scheme.describe();
  expect_postgres_hold(listed_lock(short_scheme.json(), lease.name()), lease, "exclusive");

  const auto bad = run_distlock({"--url", url_ + "?lock_table=Bad-Name", "list"});
  EXPECT_EQ(bad.code(), 2) << bad.describe();
  EXPECT_NE(bad.err.find("lock_table"), std::string::npos) << bad.err;

  // Not created by the command: a table nobody made is a wrong URL, not an empty one.
  const auto absent = run_distlock({"--url", url_ + "?lock_table=absent_locks", "list"});
  EXPECT_EQ(absent.code(), 2) << absent.describe();
  EXPECT_NE(absent.err.find("no lock table absent_locks"), std::string::npos) << absent.err;
  EXPECT_NE(absent.err.find(server_name()), std::string::npos) << absent.err;
  EXPECT_EQ(server().psql("SELECT to_regclass('absent_locks')"), "");
  const auto absent_release =
      run_distlock({"--url", url_ + "?lock_table=absent_locks", "release", "x:y", "--force"});
  EXPECT_EQ(absent_release.code(), 2) << absent_release.describe();
  EXPECT_NE(absent_release.err.find("x:y"), std::string::npos) << absent_release.err;
}

TEST_F(DistlockCommandPostgres, AnUnreachableServerExitsWith3) {
  const std::string url =
      "postgresql://distlock@127.0.0.1:" + std::to_string(free_loopback_port()) + "/postgres";
  const auto result = run_distlock({"--url", url, "list"});
  EXPECT_EQ(result.code(), 3) << result.describe();
  EXPECT_NE(result.err.find("cannot connect"), std::string::npos) << result.err;
}

// The admin API as a program uses it: the same holds, the time left by the server's clock, and
// a force-release that returns what it removed.
TEST_F(DistlockCommandPostgres, TheAdminApiSeesAndReleasesWhatTheCommandDoes) {
  const auto client = connect();
  const Lease permit =
      client->acquire(spec(std::string_view(type_), 10s, distlock::permits(3)), "api");
  const auto admin = admin::LockAdmin::connect(url_);
  EXPECT_EQ(admin->server(), server_name());

  const auto lock = admin->show(permit.name());
  ASSERT_TRUE(lock.has_value());
  ASSERT_EQ(lock->holds.size(), 1u);
  const admin::Hold& hold = lock->holds[0];
  EXPECT_EQ(hold.kind, admin::HoldKind::semaphore);
  EXPECT_EQ(hold.holder.acquisition_id, permit.id());
  EXPECT_EQ(hold.holder.pid, ::getpid());
  EXPECT_EQ(hold.fence, permit.fence());
  EXPECT_EQ(hold.count, 1u);
  ASSERT_TRUE(hold.time_left.has_value());
  EXPECT_GT(hold.time_left->count(), 0);
  EXPECT_LE(hold.time_left->count(), 10'000);
  ASSERT_TRUE(hold.acquired_at.has_value());
  EXPECT_TRUE(lock->waiters.empty());

  const auto listed = admin->list(type_ + ":*");
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].name, permit.name());

  const auto released = admin->force_release(permit.name(), permit.id());
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0].name, permit.name());
  EXPECT_EQ(released[0].hold.holder.acquisition_id, permit.id());
  EXPECT_EQ(released[0].hold.kind, admin::HoldKind::semaphore);
  EXPECT_FALSE(admin->show(permit.name()).has_value());
  EXPECT_TRUE(admin->force_release(permit.name()).empty());

  const auto servers = admin::describe_servers(url_);
  ASSERT_EQ(servers.size(), 1u);
  EXPECT_EQ(servers[0].kind, "postgresql");
  EXPECT_EQ(servers[0].eviction, admin::EvictionRisk::not_applicable);
}

}  // namespace
}  // namespace distlock::testing
