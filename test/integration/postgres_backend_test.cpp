// SPDX-License-Identifier: Apache-2.0
// What is particular to postgresql://, against a private PostgreSQL server: the URL is libpq's
// (its own parameters pass through, a bad one is a ConfigError naming libpq's reason and no
// secret, and a password libpq would misread is refused without showing it), distlock's keys choose
// the table, a missing table is created and one the user may not create is a ConfigError saying
// what to do, an unreachable server is BackendUnavailable naming it, and a lease outlives the
// server's restart and the termination of the client's sessions, whose waiters are still woken by
// the release. The lock kinds' holds and waiters are rows of their own: a dead reader stops
// counting after its ttl, the place of a fair waiter and the mark of a waiting writer that died
// hold nobody back past theirs, a writer whose wait ran out stops holding readers back at once, a
// fair release wakes the next waiter and no other waiter of the same client, a release notifies
// only when someone waits (a fair waiter too, when the holder is plain) and names the first in
// line, a listening connection gone silent is replaced, a release sent again after a lost reply
// tells a release from a loss, and permits taken by many threads at once never exceed their
// number. (The behaviours every backend shares:
// lock_behaviour_test and async_acquire_test.)
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "backends/postgres/connection.h"
#include "backends/postgres/settings.h"
#include "holder_thread.h"
#include "integration_helpers.h"
#include "loopback_socket.h"
#include "postgres_channel.h"
#include "postgres_server.h"
#include "tcp_proxy.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

class PostgresBackend : public ::testing::Test {
 protected:
  static void TearDownTestSuite() { server_.stop(); }
  void SetUp() override {
    try {
      url_ = server_.get().url();
    } catch (const std::exception& e) {
      FAIL() << "cannot start PostgreSQL: " << e.what();
    }
    key_ = unique_name("key");
  }
  PostgresServer& server() { return server_.get(); }

  // Starts `count` waiters of `lock` on `client`, one after another, each once the one before
  // waits; false (with a failure naming the waiter) if one never does.
  bool queue_waiters(Client& client, const LockSpec& lock, int count,
                     std::vector<std::unique_ptr<Holder>>& queued) {
    for (int i = 0; i < count; ++i) {
      queued.push_back(std::make_unique<Holder>(client, lock, key_));
      if (!eventually([&] { return client.stats().waiting == static_cast<unsigned>(i + 1); })) {
        ADD_FAILURE() << "waiter " << i << " never waited";
        return false;
      }
    }
    return true;
  }

  // Queues three waiters of `lock` on `waiters`, then releases `freed`: one waiter is woken and
  // granted, the other two wait on, and the winner's release wakes the next at once, not when
  // the ttl of the holder they were told runs out.
  void expect_each_release_to_wake_one(Client& waiters, const LockSpec& lock, Lease& freed) {
    std::vector<std::unique_ptr<Holder>> queued;
    ASSERT_TRUE(queue_waiters(waiters, lock, 3, queued));
    const auto granted_one = [&] {
      Holder* granted = nullptr;
      eventually([&] {
        for (const auto& waiter : queued)
          if (waiter && waiter->granted_within(0ms)) granted = waiter.get();
        return granted != nullptr;
      });
      return granted;
    };
    const ClientStats before = waiters.stats();
    freed.release();
    Holder* first = granted_one();
    ASSERT_NE(first, nullptr) << "no waiter was granted after the release";
    EXPECT_EQ(waiters.stats().woken_by_release - before.woken_by_release, 1u);
    EXPECT_EQ(waiters.stats().waiting, 2u);
    for (auto& waiter : queued)
      if (waiter.get() == first) waiter.reset();
    ASSERT_NE(granted_one(), nullptr) << "the winner's release did not wake the next waiter";
    EXPECT_EQ(waiters.stats().woken_by_timeout, 0u);
  }

  // The most permits of a lock held at once while `threads` clients of `url` take and give back
  // `permits` of them, `rounds` times each, all at once. Each holder counts, while it holds its
  // permit, the permits the server has granted: a grant made beside the others would be seen.
  int most_permits_held_at_once(const std::string& url, const std::string& key, int count) {
    constexpr int kThreads = 6;
    constexpr int kRounds = 10;
    std::vector<std::shared_ptr<Client>> clients;
    for (int i = 0; i < kThreads; ++i) clients.push_back(Client::connect(url));
    const std::string count_held =
        "SELECT count(*) FROM distlock_locks_holds WHERE name = 'many_permits:" + key +
        "' AND kind = 'permit' AND expires_at > clock_timestamp()";
    std::atomic<int> most{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        for (int round = 0; round < kRounds; ++round) {
          try {
            Lease lease =
                clients[i]->acquire(spec("many_permits", 10s, wait(30s), permits(count)), key);
            const int held = std::stoi(server().psql(count_held));
            int seen = most.load();
            while (held > seen && !most.compare_exchange_weak(seen, held)) {
            }
            lease.release();
          } catch (const Error& error) {
            ADD_FAILURE() << error.what();
            return;
          }
        }
      });
    }
    for (auto& thread : threads) thread.join();
    return most.load();
  }

  static inline SuiteService<PostgresServer> server_;
  std::string url_;
  std::string key_;
};

TEST_F(PostgresBackend, LibpqParametersPassThroughAndABadOneNamesLibpqsReason) {
  auto client = Client::connect(url_ + "?application_name=billing&sslmode=disable");
  Lease lease = client->acquire(spec("through", 10s), key_);
  EXPECT_EQ(server().psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                          "'billing'") != "0",
            true);
  const std::string secret = "s3cret-pw";
  try {
    (void)Client::connect("postgresql://distlock:" + secret + "@127.0.0.1:" +
                          std::to_string(server().port()) + "/postgres?no_such_parameter=1");
    ADD_FAILURE() << "a URL with a parameter libpq does not know was taken";
  } catch (const ConfigError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("libpq cannot use it"), std::string::npos) << what;
    EXPECT_NE(what.find("no_such_parameter"), std::string::npos) << what;
    EXPECT_EQ(what.find(secret), std::string::npos) << what;
  }
  // The '@' forgotten and a '?' in the user name: libpq takes the rest for a query and quotes
  // it, password and all (found by NoSecretInAnyMessage, seed 2848499137).
  try {
    (void)Client::connect("postgresql://l?ocker:" + secret + "/postgres?connect_timeout=1");
    ADD_FAILURE() << "a URL whose query libpq cannot read was taken";
  } catch (const ConfigError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("libpq cannot use it"), std::string::npos) << what;
    EXPECT_EQ(what.find(secret), std::string::npos) << what;
  }
}

// libpq would end the user information at the first '/' or '@' and take the rest of the
// password for a host, and would quote a broken escape in its complaint: such a URL is refused
// first, saying how to write it, and neither message shows the password.
TEST_F(PostgresBackend, APasswordLibpqWouldMisreadIsRefusedWithoutShowingIt) {
  const std::string where = "@127.0.0.1:" + std::to_string(server().port()) + "/postgres";
  const struct {
    std::string password;
    std::string advice;
  } cases[] = {{"se/cr@et", "%2F and %40"}, {"50%zz-off", "%25"}};
  for (const auto& [password, advice] : cases) {
    try {
      (void)Client::connect("postgresql://distlock:" + password + where);
      ADD_FAILURE() << "a password libpq would misread was taken: " << password;
    } catch (const ConfigError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(advice), std::string::npos) << what;
      EXPECT_EQ(what.find(password.substr(0, 4)), std::string::npos) << what;
    }
  }
  // Written as the message says, the same password is libpq's to check.
  auto client = Client::connect("postgresql://distlock:se%2Fcr%40et" + where);
  EXPECT_TRUE(client->try_acquire(spec("escaped", 10s), key_).has_value());
}

// A pooler's DISCARD ALL between two transactions (PgBouncer's server_reset_query) drops the
// session's prepared statements and resets its settings to the connection's defaults: the next
// statement is prepared again and runs, at READ COMMITTED again, alone or after another.
TEST_F(PostgresBackend, ASessionDiscardedUnderItsConnectionIsSetUpAgain) {
  namespace postgres = detail::postgres;
  const auto settings = postgres::postgres_settings(
      url_ + "?options=-c%20default_transaction_isolation%3Drepeatable%5C%20read", {});
  postgres::Connection connection(settings, detail::kNoCallerDeadline);
  const postgres::Statement isolation{"distlock_test_isolation",
                                      "SELECT current_setting('transaction_isolation')"};
  const postgres::Statement first{"distlock_test_first", "SELECT 1"};
  const auto level_alone = [&] {
    return std::string(PQgetvalue(connection.run(isolation, {}).get(), 0, 0));
  };
  const auto level_after_first = [&] {
    return std::string(PQgetvalue(connection.run_after(first, {}, isolation, {}).get(), 0, 0));
  };
  EXPECT_EQ(level_alone(), "read committed");
  EXPECT_EQ(level_after_first(), "read committed");
  connection.execute("DISCARD ALL");
  EXPECT_EQ(level_alone(), "read committed");
  connection.execute("DISCARD ALL");
  EXPECT_EQ(level_after_first(), "read committed");
  EXPECT_FALSE(connection.broken());
}

// A reserved word names the lock table as any plain name does: every statement quotes it.
TEST_F(PostgresBackend, AReservedWordNamesTheLockTableForEveryKind) {
  auto client = Client::connect(url_ + "?lock_table=user");
  const LockSpec kinds[] = {spec("reserved", 10s), spec("reserved", 10s, distlock::fair),
                            spec("reserved", 10s, distlock::read),
                            spec("reserved", 10s, distlock::write),
                            spec("reserved", 10s, permits(2))};
  int index = 0;
  for (const LockSpec& kind : kinds) {
    const std::string key = key_ + "-" + std::to_string(index++);
    Lease lease = client->acquire(kind, key);
    const std::string name = "'reserved:" + key + "'";
    // The exclusive kinds are rows of the lock table; readers, writers and permits holds.
    EXPECT_EQ(
        server().psql("SELECT (SELECT count(*) FROM \"user\" WHERE name = " + name +
                      ") || ' ' || (SELECT count(*) FROM user_holds WHERE name = " + name + ")"),
        kind.mode == Mode::exclusive && kind.permits == 0 ? "1 0" : "0 1")
        << "kind " << index;
    lease.release();
  }
}

TEST_F(PostgresBackend, DistlocksOwnKeysChooseTheTableAndTheTimeouts) {
  auto client = Client::connect(url_ + "?lock_table=billing_locks&command_timeout=2s");
  Lease lease = client->acquire(spec("tabled", 10s), key_);
  EXPECT_EQ(server().psql("SELECT count(*) FROM billing_locks WHERE name = 'tabled:" + key_ + "'"),
            "1");
  EXPECT_EQ(server().psql("SELECT count(*) FROM distlock_locks WHERE name = 'tabled:" + key_ + "'"),
            "0");
  try {
    (void)Client::connect(url_ + "?lock_table=Bad-Name");
    ADD_FAILURE() << "a lock_table that is no plain SQL name was taken";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("lock_table"), std::string::npos) << error.what();
  }
  EXPECT_THROW((void)Client::connect(url_ + "?command_timeout=soon"), ConfigError);
  // libpq's own connect_timeout is whole seconds: distlock, which enforces it, reads it so.
  EXPECT_NO_THROW((void)Client::connect(url_ + "?connect_timeout=5"));
  try {
    (void)Client::connect(url_ + "?connect_timeout=5s");
    ADD_FAILURE() << "a connect_timeout libpq would refuse was taken";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("whole number of seconds"), std::string::npos)
        << error.what();
  }
}

TEST_F(PostgresBackend, AUserWhoMayNotCreateTheTableIsToldHowToGetOne) {
  const std::string role = "plain_" + std::to_string(server().port());
  server().psql("CREATE ROLE " + role + " LOGIN");
  const std::string as_role = "postgresql://" + role +
                              "@127.0.0.1:" + std::to_string(server().port()) +
                              "/postgres?lock_table=" + role + "_locks";
  try {
    (void)Client::connect(as_role);
    ADD_FAILURE() << "a user without CREATE on the schema got a lock table";
  } catch (const ConfigError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("may not create it"), std::string::npos) << what;
    EXPECT_NE(what.find("guide"), std::string::npos) << what;
  }
  // Made by its owner as an earlier distlock wanted it, the table lacks a column, and the
  // error says how to add it.
  server().psql("CREATE TABLE " + role +
                "_locks (name text PRIMARY KEY, owner text NOT NULL, fence bigint NOT NULL, "
                "holds text[] NOT NULL, holder text NOT NULL, expires_at timestamptz NOT NULL)");
  server().psql("CREATE SEQUENCE " + role + "_locks_fence");
  server().psql("CREATE TABLE " + role +
                "_locks_holds (name text NOT NULL, id text NOT NULL, kind text NOT NULL, owner "
                "text NOT NULL, fence bigint, place bigint, holder text NOT NULL, expires_at "
                "timestamptz NOT NULL, PRIMARY KEY (name, id))");
  server().psql("GRANT SELECT, INSERT, UPDATE, DELETE ON " + role + "_locks, " + role +
                "_locks_holds TO " + role);
  server().psql("GRANT USAGE ON SEQUENCE " + role + "_locks_fence TO " + role);
  try {
    (void)Client::connect(as_role);
    ADD_FAILURE() << "a lock table without the column waited was taken";
  } catch (const ConfigError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("ALTER TABLE " + role +
                        "_locks ADD COLUMN waited boolean NOT NULL DEFAULT "
                        "false"),
              std::string::npos)
        << what;
  }
  // Made as the guide makes it and granted, the table serves that user.
  server().psql("ALTER TABLE " + role + "_locks ADD COLUMN waited boolean NOT NULL DEFAULT false");
  auto client = Client::connect(as_role);
  EXPECT_TRUE(client->try_acquire(spec("granted", 10s), key_).has_value());
}

TEST_F(PostgresBackend, AnUnreachableServerIsBackendUnavailableNamingIt) {
  const std::uint16_t closed = free_loopback_port();
  const std::string url = "postgresql://distlock@127.0.0.1:" + std::to_string(closed) + "/postgres";
  try {
    (void)Client::connect(url);
    ADD_FAILURE() << "connected to a closed port";
  } catch (const BackendUnavailable& error) {
    EXPECT_EQ(error.server(), url.substr(0, url.find("distlock@")) +
                                  "***@127.0.0.1:" + std::to_string(closed) + "/postgres");
    EXPECT_NE(std::string(error.what()).find("cannot connect"), std::string::npos) << error.what();
  }
}

// The lock rows are the server's data: a restart keeps them, the client's connections come
// back, the holder's renewals go on and another client stays out.
TEST_F(PostgresBackend, ALeaseOutlivesTheServersRestart) {
  auto holder = Client::connect(url_);
  auto other = Client::connect(url_);
  Lease lease = holder->acquire(spec("restart", 2s), key_);
  server().restart();
  EXPECT_FALSE(other->try_acquire(spec("restart", 2s), key_).has_value());
  // Renewed for longer than its ttl on new connections: only they kept it.
  const auto renewed = holder->stats().renewals;
  ASSERT_TRUE(eventually([&] { return holder->stats().renewals >= renewed + 4; }));
  EXPECT_TRUE(lease.valid());
  EXPECT_FALSE(other->try_acquire(spec("restart", 2s), key_).has_value());
  lease.release();
  EXPECT_TRUE(other->try_acquire(spec("restart", 2s), key_).has_value());
}

// pg_terminate_backend ends every session of the clients: the holder keeps its lease, and a
// waiter, whose listening session ended too, is still woken by the release.
TEST_F(PostgresBackend, TerminatedSessionsComeBackAndTheWaiterHearsTheRelease) {
  auto holder = Client::connect(url_);
  auto waiter = Client::connect(url_);
  Lease lease = holder->acquire(spec("terminated", 30s), key_);
  auto waited = std::async(std::launch::async, [&] {
    return waiter->acquire(spec("terminated", 30s, wait(30s)), key_);
  });
  ASSERT_TRUE(eventually([&] { return waiter->stats().waiting == 1; }));
  server().psql(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = "
      "'distlock'");
  // The waiter listens again before the release: it cannot know when that will be.
  ASSERT_TRUE(eventually([&] {
    return server().psql(
               "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
               "'distlock' AND query LIKE 'LISTEN%'") == "2";
  }));
  // Listening again wakes the waiter to try (it may have missed a release meanwhile); it finds
  // the lock still held and waits again.
  ASSERT_TRUE(eventually(
      [&] { return waiter->stats().woken_by_release >= 1 && waiter->stats().waiting == 1; }));
  const auto woken_before = waiter->stats().woken_by_release;
  lease.release();
  ASSERT_EQ(waited.wait_for(20s), std::future_status::ready);
  Lease granted = waited.get();
  EXPECT_TRUE(granted.valid());
  EXPECT_GT(granted.fence(), lease.fence());
  EXPECT_GT(waiter->stats().woken_by_release, woken_before);
}

TEST_F(PostgresBackend, AReaderThatIsNotRenewedStopsCountingAfterItsTtl) {
  auto reader = Client::connect(url_);
  auto writer = Client::connect(url_);
  Lease lapsing = reader->acquire(spec("dead_reader", 300ms, read, renew(false)), key_);
  Lease written = writer->acquire(spec("dead_reader", 5s, wait(10s), write), key_);
  EXPECT_FALSE(lapsing.valid());
  EXPECT_TRUE(written.valid());
  EXPECT_GT(written.fence(), lapsing.fence());
}

// What a waiter that died leaves behind (its process gone between two tries): a row of the holds
// table, as the backend writes one, that nobody will keep alive. (Client::connect has made the
// tables.)
void leave_dead_waiter(PostgresServer& server, const std::string& lock, const std::string& kind) {
  server.psql(
      "INSERT INTO distlock_locks_holds (name, id, kind, owner, fence, place, holder, expires_at) "
      "VALUES ('" +
      lock + "', 'dead-waiter', '" + kind +
      "', 'dead-owner', NULL, nextval('distlock_locks_fence'), 'a process that died', "
      "clock_timestamp() + interval '2 seconds')");
}

TEST_F(PostgresBackend, AFairWaiterThatDiedHoldsTheQueueBackOnlyUntilItsPlaceRunsOut) {
  auto client = Client::connect(url_);
  leave_dead_waiter(server(), "dead_place:" + key_, "queued");
  EXPECT_FALSE(client->try_acquire(spec("dead_place", 30s, fair), key_).has_value())
      << "a fair acquisition went ahead of a place that had not run out";
  Lease lease = client->acquire(spec("dead_place", 30s, fair, wait(10s)), key_);
  EXPECT_TRUE(lease.valid());
}

TEST_F(PostgresBackend, AWriterThatDiedWaitingHoldsReadersBackOnlyUntilItsMarkRunsOut) {
  auto client = Client::connect(url_);
  leave_dead_waiter(server(), "dead_writer:" + key_, "writer");
  EXPECT_FALSE(client->try_acquire(spec("dead_writer", 30s, read), key_).has_value())
      << "a reader went ahead of a waiting writer's mark that had not run out";
  Lease lease = client->acquire(spec("dead_writer", 30s, read, wait(10s)), key_);
  EXPECT_TRUE(lease.valid());
}

TEST_F(PostgresBackend, AWriterWhoseWaitRanOutNoLongerHoldsReadersBack) {
  auto reader = Client::connect(url_);
  auto writer = Client::connect(url_);
  auto late_reader = Client::connect(url_);
  const auto reading = spec("left_writer", 30s, read);
  Lease held = reader->acquire(reading, key_);
  EXPECT_THROW(writer->acquire(spec("left_writer", 30s, wait(300ms), write), key_), LockTimeout);
  // The writer's mark would hold readers back for its 30 s ttl had it not been taken back.
  EXPECT_TRUE(late_reader->try_acquire(reading, key_).has_value());
}

TEST_F(PostgresBackend, AFairReleaseWakesTheNextWaiterAndNoOtherOfTheSameClient) {
  auto holder = Client::connect(url_);
  auto waiters = Client::connect(url_);
  const auto fair_lock = spec("fair_wake", 30s, fair, wait(30s));
  Lease held = holder->acquire(fair_lock, key_);
  std::vector<std::unique_ptr<Holder>> queued;
  ASSERT_TRUE(queue_waiters(*waiters, fair_lock, 3, queued));
  const ClientStats before = waiters->stats();
  held.release();
  ASSERT_TRUE(queued[0]->granted_within(5s)) << "the first in line was not granted";
  EXPECT_FALSE(queued[1]->granted_within(0ms));
  const ClientStats after = waiters->stats();
  // One listener serves the client's three waiters: a release naming only the lock would have
  // woken all three.
  EXPECT_EQ(after.woken_by_release - before.woken_by_release, 1u);
  EXPECT_EQ(after.waiting, 2u);
}

// A release of a plain lock wakes one waiter of a client, not all of them; the one it wakes
// marks its grant as waited for (the others still wait), so that its release is told.
TEST_F(PostgresBackend, APlainReleaseWakesOneWaiterOfAClientAndItsReleaseTheNext) {
  auto holder = Client::connect(url_);
  auto waiters = Client::connect(url_);
  const auto plain_lock = spec("plain_wake", 30s, wait(30s));
  Lease held = holder->acquire(plain_lock, key_);
  expect_each_release_to_wake_one(*waiters, plain_lock, held);
}

// A permit given back wakes one waiter of a client, as a freed lock does: one permit has one
// taker, and every permit's release is told.
TEST_F(PostgresBackend, APermitGivenBackWakesOneWaiterOfAClientAndItsReleaseTheNext) {
  auto holder = Client::connect(url_);
  auto waiters = Client::connect(url_);
  const auto pool = spec("permit_wake", 30s, permits(2), wait(30s));
  Lease given_back = holder->acquire(pool, key_);
  Lease kept = holder->acquire(pool, key_);
  expect_each_release_to_wake_one(*waiters, pool, given_back);
  EXPECT_TRUE(kept.valid());
}

// The channel a release notifies on: the lock table's name.
constexpr const char* kReleaseChannel = "distlock_locks";

TEST_F(PostgresBackend, AReleaseNotifiesOnlyWhenSomeoneWaits) {
  PostgresChannel channel(server(), kReleaseChannel);
  auto holder = Client::connect(url_);
  auto waiter = Client::connect(url_);
  const auto lock = spec("told", 30s, wait(30s));
  holder->acquire(lock, key_).release();
  channel.send("nobody waited");
  EXPECT_EQ(channel.next(10s), "nobody waited") << "a release nobody waited for notified";

  Lease held = holder->acquire(lock, key_);
  auto waited = std::async(std::launch::async, [&] { return waiter->acquire(lock, key_); });
  ASSERT_TRUE(eventually([&] { return waiter->stats().waiting == 1; }));
  held.release();
  EXPECT_EQ(channel.next(10s), "ftold:" + key_);
  ASSERT_EQ(waited.wait_for(10s), std::future_status::ready);
  Lease granted = waited.get();
  EXPECT_GE(waiter->stats().woken_by_release, 1u);
  // The grant took the mark away: nobody waits for the new holder.
  granted.release();
  channel.send("the waiter released");
  EXPECT_EQ(channel.next(10s), "the waiter released");
}

// A fair waiter behind a plain holder marks the lock as waited for, as a plain waiter does: the
// plain release wakes it at once, not its next try a third of its ttl later.
TEST_F(PostgresBackend, APlainReleaseWakesAFairWaiter) {
  auto holder = Client::connect(url_);
  auto waiter = Client::connect(url_);
  Lease held = holder->acquire(spec("mixed", 30s), key_);
  Holder queued(*waiter, spec("mixed", 30s, fair, wait(30s)), key_);
  ASSERT_TRUE(eventually([&] { return waiter->stats().waiting == 1; }));
  held.release();
  EXPECT_TRUE(queued.granted_within(5s)) << "the fair waiter was not woken by the release";
  EXPECT_GE(waiter->stats().woken_by_release, 1u);
}

// Several fair waiters of one client behind a plain holder: the plain release wakes the first in
// line, whose turn it is, not whichever of them the listener would wake for a plain waiter. The
// first in line looks again on its timer (a third of the holder's ttl) before the others do, and
// so waits behind them for the next wake-up: woken in its stead, they would find it is not their
// turn, and it would wait for its next look.
TEST_F(PostgresBackend, APlainReleaseWakesTheFirstInLineOfSeveralFairWaiters) {
  constexpr auto kTtl = 6s;
  auto holder = Client::connect(url_);
  auto waiters = Client::connect(url_);
  const auto fair_lock = spec("mixed_queue", kTtl, fair, wait(30s));
  Lease held = holder->acquire(spec("mixed_queue", kTtl), key_);
  std::vector<std::unique_ptr<Holder>> queued;
  ASSERT_TRUE(queue_waiters(*waiters, fair_lock, 3, queued));
  ASSERT_TRUE(eventually([&] { return waiters->stats().woken_by_timeout >= 1; }));
  held.release();
  EXPECT_TRUE(queued[0]->granted_within(kTtl / 6)) << "the first in line was not woken";
}

// The connection that listens for releases can go silent without a word to either end (a NAT or
// a load balancer that forgot it): the listener asks it a heartbeat after a command timeout of
// silence, gives it up when no answer comes, and listens on a new one; the waiter hears of the
// release then, not on its next look a third of the holder's ttl (20 s) later.
TEST_F(PostgresBackend, AListenerWhoseConnectionWentSilentListensAgainAndItsWaiterIsWoken) {
  TcpProxy proxy(server().port());
  auto holder = Client::connect(url_);
  Options options;
  options.command_timeout = 1s;
  auto waiter = Client::connect("postgresql://distlock@" + proxy.address() + "/postgres", options);
  const auto lock = spec("silenced", 60s, wait(60s));
  Lease held = holder->acquire(lock, key_);
  auto waited = std::async(std::launch::async, [&] { return waiter->acquire(lock, key_); });
  ASSERT_TRUE(eventually([&] { return waiter->stats().waiting == 1; }));
  proxy.silence_established();
  held.release();
  ASSERT_EQ(waited.wait_for(15s), std::future_status::ready)
      << "the waiter did not hear of the release";
  EXPECT_TRUE(waited.get().valid());
  EXPECT_EQ(waiter->stats().woken_by_timeout, 0u);
}

// A release whose reply is lost is sent again; finding the hold gone then, it tells by when its
// first send went out whether that send removed the hold (sent while the lease was valid: no
// loss) or the hold had run out before (a loss, as a first send finding it gone reports).
TEST_F(PostgresBackend, AReleaseSentAgainAfterItsHoldRanOutReportsTheLoss) {
  TcpProxy proxy(server().port());
  auto client = Client::connect("postgresql://distlock@" + proxy.address() + "/postgres");
  Lease lease = client->acquire(spec("ran_out", 1s, renew(false)), key_);
  const std::string live_rows =
      "SELECT count(*) FROM distlock_locks WHERE name = 'ran_out:" + key_ +
      "' AND expires_at > clock_timestamp()";
  ASSERT_TRUE(eventually([&] { return !lease.valid() && server().psql(live_rows) == "0"; }));
  proxy.cut_after_reply_to("distlock_release");
  EXPECT_THROW(lease.release(), LockLost);
  EXPECT_EQ(proxy.reply_cuts(), 1) << "the release's reply was not cut";
}

TEST_F(PostgresBackend, AReleaseWhoseReplyIsLostIsReleasedNotLost) {
  TcpProxy proxy(server().port());
  auto client = Client::connect("postgresql://distlock@" + proxy.address() + "/postgres");
  Lease lease = client->acquire(spec("reply_lost", 60s), key_);
  proxy.cut_after_reply_to("distlock_release");
  EXPECT_NO_THROW(lease.release());
  EXPECT_EQ(proxy.reply_cuts(), 1) << "the release's reply was not cut";
  EXPECT_EQ(client->stats().lost, 0u);
}

TEST_F(PostgresBackend, PermitsTakenByManyThreadsAtOnceNeverExceedTheirNumber) {
  const int most = most_permits_held_at_once(url_, key_, 2);
  EXPECT_LE(most, 2);
  EXPECT_GE(most, 1);
}

// The statements rely on READ COMMITTED (each sees what committed while the one before it
// waited for the lock's turn): a connection whose user or database defaults to another level
// runs them at READ COMMITTED all the same.
TEST_F(PostgresBackend, AnotherDefaultIsolationLevelChangesNothing) {
  const struct {
    std::string option;  // in libpq's options, a space escaped with '\\'
    std::string tag;
  } levels[] = {{"repeatable%5C%20read", "rr"}, {"serializable", "ser"}};
  for (const auto& [level, tag] : levels) {
    SCOPED_TRACE(tag);
    const std::string url = url_ + "?options=-c%20default_transaction_isolation%3D" + level;
    const int most = most_permits_held_at_once(url, key_ + tag, 2);
    EXPECT_LE(most, 2);
    EXPECT_GE(most, 1);
    // An exclusive lock contended by several clients at once: one holder, and no error.
    std::vector<std::shared_ptr<Client>> clients;
    for (int i = 0; i < 4; ++i) clients.push_back(Client::connect(url));
    std::atomic<int> holders{0};
    std::atomic<int> most_holders{0};
    std::vector<std::thread> threads;
    for (auto& client : clients) {
      threads.emplace_back([&, client] {
        for (int round = 0; round < 10; ++round) {
          try {
            Lease lease = client->acquire(spec("isolated", 10s, wait(30s)), key_ + tag);
            const int now_holding = ++holders;
            int seen = most_holders.load();
            while (now_holding > seen && !most_holders.compare_exchange_weak(seen, now_holding)) {
            }
            --holders;
            lease.release();
          } catch (const Error& error) {
            ADD_FAILURE() << error.what();
            return;
          }
        }
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(most_holders.load(), 1);
  }
}

}  // namespace
}  // namespace distlock::testing
