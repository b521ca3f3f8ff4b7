// SPDX-License-Identifier: Apache-2.0
// Client::acquire_async on memory://, on a private redis-server, on a private replicated Redis
// behind three sentinels, on a private Redis Cluster and on a private ZooKeeper, and over TLS on
// the first two Redis topologies (each started once for the suite): the handler is called once,
// off the caller's thread, with the lease or why there is none; a waiter is woken by the release,
// not by a thread of its own; a cancelled waiter leaves no fair queue place, writer intent or
// permit request behind. Waiters start waiting in a known order by watching the client's count of
// waiters. Each test locks a key of its own. (ZooKeeper's nodes themselves: zookeeper_async_test.)
#include <dirent.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

#include "async_outcome.h"
#include "integration_helpers.h"
#include "zookeeper_helpers.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// The threads of this process.
int thread_count() {
  int count = 0;
  if (DIR* tasks = ::opendir("/proc/self/task")) {
    while (const dirent* entry = ::readdir(tasks))
      if (entry->d_name[0] != '.') ++count;
    ::closedir(tasks);
  }
  return count;
}

// rediss, rediss_sentinel: servers (and sentinels) that speak TLS only (a build with TLS).
enum class Backend {
  memory,
  redis,
  redis_sentinel,
  redis_cluster,
  rediss,
  rediss_sentinel,
  zookeeper
};

std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  switch (info.param) {
    case Backend::memory:
      return "memory";
    case Backend::redis:
      return "redis";
    case Backend::redis_sentinel:
      return "redis_sentinel";
    case Backend::redis_cluster:
      return "redis_cluster";
    case Backend::rediss:
      return "rediss";
    case Backend::rediss_sentinel:
      return "rediss_sentinel";
    case Backend::zookeeper:
      return "zookeeper";
  }
  return "?";
}

class AsyncAcquire : public ::testing::TestWithParam<Backend> {
 protected:
  static void TearDownTestSuite() {
    redis_.stop();
    sentinel_group_.stop();
    cluster_.stop();
    tls_redis_.stop();
    tls_sentinel_group_.stop();
    zookeeper_.stop();
  }

  void SetUp() override {
    try {
      switch (GetParam()) {
        case Backend::memory:
          // Clients with one memory:// name share locks; a name per test keeps tests apart.
          client_ = Client::connect("memory://" + unique_name("async"));
          break;
        case Backend::redis:
          client_ = Client::connect(redis_.get().url());
          break;
        case Backend::redis_sentinel:
          client_ = Client::connect(sentinel_group_.get().url());
          break;
        case Backend::redis_cluster:
          client_ = Client::connect(cluster_.get().url());
          break;
        case Backend::rediss:
          client_ = Client::connect(with_test_ca(tls_redis_.get().url()));
          break;
        case Backend::rediss_sentinel:
          client_ = Client::connect(with_test_ca(tls_sentinel_group_.get().url()));
          break;
        case Backend::zookeeper:
          client_ = Client::connect(with_session_timeout(zookeeper_.get().url()));
          break;
      }
    } catch (const std::exception& e) {
      FAIL() << "cannot start the server: " << e.what();
    }
    key_ = unique_name("key");
  }

  bool waiters_reach(std::uint64_t count) {
    return eventually([&] { return client_->stats().waiting == count; });
  }

  static inline SuiteRedis redis_;
  static inline SuiteSentinelGroup sentinel_group_;
  static inline SuiteRedisCluster cluster_;
  static inline SuiteTlsRedis tls_redis_;
  static inline SuiteTlsSentinelGroup tls_sentinel_group_;
  static inline SuiteZooKeeper zookeeper_;
  std::shared_ptr<Client> client_;
  std::string key_;
};

TEST_P(AsyncAcquire, AFreeLockIsGrantedToTheHandlerOnAnotherThread) {
  auto granted = start_acquisition(*client_, spec("free", 10s), key_);
  Outcome outcome = outcome_of(granted);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  EXPECT_NE(outcome.thread, std::this_thread::get_id());
  EXPECT_TRUE(outcome.lease.valid());
  EXPECT_EQ(outcome.lease.name(), "free:" + key_);
  EXPECT_EQ(client_->stats().acquired, 1u);
  // The lease belongs to no thread: this thread does not see it as its own.
  EXPECT_FALSE(client_->try_acquire(spec("free", 10s), key_).has_value());
}

TEST_P(AsyncAcquire, AWaiterIsGrantedByTheRelease) {
  Lease held = client_->acquire(spec("released", 10s), key_);
  auto waiting = start_acquisition(*client_, spec("released", 10s), key_);
  ASSERT_TRUE(waiters_reach(1));
  held.release();
  Outcome outcome = outcome_of(waiting);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  EXPECT_GT(outcome.lease.fence(), held.fence());
  EXPECT_GE(client_->stats().woken_by_release, 1u);
  EXPECT_EQ(client_->stats().woken_by_timeout, 0u);
  EXPECT_EQ(client_->stats().waiting, 0u);
}

// Where a lease ends with its ttl (on ZooKeeper, it ends with its holder's session).
class ExpiringAsyncAcquire : public AsyncAcquire {};

TEST_P(ExpiringAsyncAcquire, AWaiterWhoseHolderExpiresIsGrantedByItsTimer) {
  Lease held = client_->acquire(spec("expiring", 300ms, renew(false)), key_);
  auto waiting = start_acquisition(*client_, spec("expiring", 10s), key_);
  Outcome outcome = outcome_of(waiting);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  EXPECT_FALSE(held.valid());
  EXPECT_GE(client_->stats().woken_by_timeout, 1u);
  EXPECT_THROW(held.release(), LockLost);
}

TEST_P(AsyncAcquire, AWaitThatRunsOutIsALockTimeout) {
  Lease held = client_->acquire(spec("busy", 30s), key_);
  auto waiting = start_acquisition(*client_, spec("busy", 30s, wait(200ms)), key_);
  Outcome outcome = outcome_of(waiting);
  EXPECT_NE(error_of_type<LockTimeout>(outcome).find("lock 'busy:" + key_ + "'"), std::string::npos)
      << error_of_type<LockTimeout>(outcome);
  EXPECT_THROW((void)outcome.lease.name(), std::logic_error);
  EXPECT_EQ(client_->stats().timeouts, 1u);
  EXPECT_EQ(client_->stats().waiting, 0u);
}

TEST_P(AsyncAcquire, ABadSpecIsAConfigErrorInTheHandler) {
  LockSpec bad = spec("bad", 10s);
  bad.ttl = Millis{0};
  auto refused = start_acquisition(*client_, bad, key_);
  Outcome outcome = outcome_of(refused);
  EXPECT_NE(error_of_type<ConfigError>(outcome).find("ttl"), std::string::npos)
      << error_of_type<ConfigError>(outcome);
}

TEST_P(AsyncAcquire, ACancelledFairWaiterLeavesNoPlaceBehind) {
  const auto fair_lock = spec("fair", 30s, fair);
  Lease held = client_->acquire(fair_lock, key_);
  AsyncAcquisition first;
  auto cancelled = start_acquisition(*client_, fair_lock, key_, &first);
  ASSERT_TRUE(waiters_reach(1));
  auto second = start_acquisition(*client_, fair_lock, key_);
  ASSERT_TRUE(waiters_reach(2));
  first.cancel();
  Outcome withdrawn = outcome_of(cancelled);
  EXPECT_NE(error_of_type<AcquisitionCancelled>(withdrawn).find("lock 'fair:" + key_ + "'"),
            std::string::npos)
      << error_of_type<AcquisitionCancelled>(withdrawn);
  ASSERT_TRUE(waiters_reach(1));
  // Had the first kept its place, the second would wait behind it until its wait ran out.
  held.release();
  Outcome granted = outcome_of(second);
  ASSERT_FALSE(granted.error) << error_of_type<Error>(granted);
  EXPECT_TRUE(granted.lease.valid());
}

TEST_P(AsyncAcquire, ACancelledWriterLetsTheReadersItHeldBackIn) {
  Lease reading = client_->acquire(spec("report", 30s, read), key_);
  AsyncAcquisition writer;
  auto writing = start_acquisition(*client_, spec("report", 30s, write), key_, &writer);
  ASSERT_TRUE(waiters_reach(1));
  // A waiting writer holds new readers back.
  auto second_reader = start_acquisition(*client_, spec("report", 30s, read), key_);
  ASSERT_TRUE(waiters_reach(2));
  writer.cancel();
  EXPECT_NE(error_of_type<AcquisitionCancelled>(outcome_of(writing)), "no error");
  Outcome read_granted = outcome_of(second_reader);
  ASSERT_FALSE(read_granted.error) << error_of_type<Error>(read_granted);
  EXPECT_TRUE(reading.valid());
  EXPECT_TRUE(read_granted.lease.valid());
}

TEST_P(AsyncAcquire, ACancelledPermitRequestLeavesThePermitToTheNext) {
  const auto one_permit = spec("slot", 30s, permits(1));
  Lease held = client_->acquire(one_permit, key_);
  AsyncAcquisition first;
  auto cancelled = start_acquisition(*client_, one_permit, key_, &first);
  ASSERT_TRUE(waiters_reach(1));
  auto second = start_acquisition(*client_, one_permit, key_);
  ASSERT_TRUE(waiters_reach(2));
  first.cancel();
  EXPECT_NE(error_of_type<AcquisitionCancelled>(outcome_of(cancelled)), "no error");
  held.release();
  Outcome granted = outcome_of(second);
  ASSERT_FALSE(granted.error) << error_of_type<Error>(granted);
}

TEST_P(AsyncAcquire, ACancelAfterTheGrantDoesNothing) {
  AsyncAcquisition handle;
  auto granted = start_acquisition(*client_, spec("kept", 10s), key_, &handle);
  Outcome outcome = outcome_of(granted);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  handle.cancel();
  EXPECT_TRUE(outcome.lease.valid());
  EXPECT_FALSE(client_->try_acquire(spec("kept", 10s), key_).has_value());
}

// A thousand waiters on ten locks: one thread of the client's serves them all, and each is
// granted in turn as the one before it releases, with a fence above the one before.
TEST_P(AsyncAcquire, AThousandWaitersNeedNoThreadEach) {
  constexpr int kLocks = 10;
  constexpr int kWaiters = 1000;
  std::vector<Lease> holders;
  for (int i = 0; i < kLocks; ++i)
    holders.push_back(client_->acquire(spec("crowd", 30s), key_ + "-" + std::to_string(i)));
  // The first acquisition starts the client's async thread; measure after it.
  Outcome warm = [&] {
    auto warmup = start_acquisition(*client_, spec("warmup", 30s), key_);
    return outcome_of(warmup);
  }();
  ASSERT_FALSE(warm.error);
  const int threads_before = thread_count();

  std::atomic<int> granted{0};
  std::atomic<int> fences_out_of_order{0};
  std::vector<std::uint64_t> last_fence(kLocks, 0);
  std::mutex fences_mutex;
  std::promise<void> all_granted;
  for (int i = 0; i < kWaiters; ++i) {
    const int lock = i % kLocks;
    client_->acquire_async(spec("crowd", 30s), key_ + "-" + std::to_string(lock),
                           [&, lock](std::exception_ptr error, Lease lease) {
                             if (error || !lease.valid()) return;
                             {
                               std::lock_guard guard(fences_mutex);
                               if (lease.fence() <= last_fence[lock]) ++fences_out_of_order;
                               last_fence[lock] = lease.fence();
                             }
                             if (++granted == kWaiters) all_granted.set_value();
                             // The lease goes here: the next waiter's turn.
                           });
  }
  ASSERT_TRUE(waiters_reach(kWaiters));
  // Not exactly as many: threads that close earlier tests' clients come and go meanwhile. A
  // thread per waiter would add a thousand.
  EXPECT_LT(thread_count(), threads_before + kWaiters / 100);
  holders.clear();
  ASSERT_EQ(all_granted.get_future().wait_for(60s), std::future_status::ready)
      << granted << " of " << kWaiters << " granted";
  EXPECT_EQ(fences_out_of_order, 0);
  EXPECT_EQ(client_->stats().waiting, 0u);
}

// The backends this build has: rediss... with TLS, zookeeper with ZooKeeper.
std::vector<Backend> built(bool with_zookeeper) {
  std::vector<Backend> backends = {Backend::memory, Backend::redis, Backend::redis_sentinel,
                                   Backend::redis_cluster};
#if DISTLOCK_TEST_TLS
  backends.push_back(Backend::rediss);
  backends.push_back(Backend::rediss_sentinel);
#endif
#ifdef DISTLOCK_TEST_ZOOKEEPER
  if (with_zookeeper) backends.push_back(Backend::zookeeper);
#else
  (void)with_zookeeper;
#endif
  return backends;
}

INSTANTIATE_TEST_SUITE_P(Backends, AsyncAcquire, ::testing::ValuesIn(built(true)), backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, ExpiringAsyncAcquire, ::testing::ValuesIn(built(false)),
                         backend_name);

// A handler that throws does not take the client's async thread down: the exception is logged
// and the next acquisition is served.
TEST(AsyncAcquireHandler, AnExceptionItLetsOutIsLoggedAndTheClientGoesOn) {
  auto client = Client::connect("memory://" + unique_name("throwing"));
  std::mutex logged_mutex;
  std::string logged;
  set_logger([&](LogLevel, std::string_view message) {
    std::lock_guard lock(logged_mutex);
    logged += std::string(message) + "\n";
  });
  // The logger refers to this test's locals: it goes with them, however the test ends.
  struct LoggerReset {
    ~LoggerReset() { set_logger({}); }
  } reset_logger;
  Event thrown;
  client->acquire_async(spec("throwing", 10s), "a", [&](std::exception_ptr, Lease) {
    thrown.set();
    throw std::runtime_error("the handler's own failure");
  });
  ASSERT_TRUE(thrown.wait_for(30s));
  auto next = start_acquisition(*client, spec("throwing", 10s), "b");
  Outcome outcome = outcome_of(next);
  EXPECT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  std::lock_guard lock(logged_mutex);
  EXPECT_NE(logged.find("an acquire_async handler threw: the handler's own failure"),
            std::string::npos)
      << logged;
}

TEST(AsyncAcquireElsewhere, AServerWithoutItSaysSoInTheHandler) {
  RedisServer masters[3];
  std::string url = "redis+redlock://";
  for (const auto& master : masters)
    url += (url.size() > 16 ? ",127.0.0.1:" : "127.0.0.1:") + std::to_string(master.port());
  auto client = Client::connect(url);
  auto refused = start_acquisition(*client, spec("elsewhere", 10s), "a");
  Outcome outcome = outcome_of(refused);
  EXPECT_NE(error_of_type<ConfigError>(outcome).find("Redlock follows"), std::string::npos)
      << error_of_type<ConfigError>(outcome);
}

}  // namespace
}  // namespace distlock::testing
