// SPDX-License-Identifier: Apache-2.0
// Client::acquire_async on each backend and topology of the conformance list
// (test/conformance/topology.h) but the TLS Cluster: the handler is called once, off the
// caller's thread, with the lease or why there is none; a waiter is woken by the release, not by
// a thread of its own; a cancelled waiter leaves no fair queue place, writer intent or permit
// request behind; Redlock refuses the lock kinds it lacks as acquire() does, and its waiters are
// granted by the majority left when a master dies. Waiters start waiting in a known order by
// watching the client's count of waiters. Each test locks a key of its own. (ZooKeeper's nodes
// themselves: zookeeper_async_test.)
#include <dirent.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

#include "async_outcome.h"
#include "captured_log.h"
#include "integration_helpers.h"
#include "topology.h"
#include "util/sanitizer.h"

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

class AsyncAcquire : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    try {
      url_ = url_of(GetParam());
      client_ = Client::connect(url_);
    } catch (const std::exception& e) {
      FAIL() << "cannot start the server: " << e.what();
    }
    key_ = unique_name("key");
  }

  bool waiters_reach(std::uint64_t count,
                     std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    return eventually([&] { return client_->stats().waiting == count; }, limit);
  }

  // Of two waiters behind a holder of `lock_spec`, the first is cancelled: it ends at once, as
  // AcquisitionCancelled naming the lock, long before its wait or the holder's ttl run out; the
  // holder's release then grants the second, which had the first kept its place (a fair
  // queue's) would wait behind it. The second's outcome.
  Outcome second_waiter_after_the_first_is_cancelled(const LockSpec& lock_spec, Lease& held) {
    AsyncAcquisition first;
    auto cancelled = start_acquisition(*client_, lock_spec, key_, &first);
    EXPECT_TRUE(waiters_reach(1));
    auto second = start_acquisition(*client_, lock_spec, key_);
    EXPECT_TRUE(waiters_reach(2));
    first.cancel();
    Outcome withdrawn = outcome_of(cancelled);
    EXPECT_NE(error_of_type<AcquisitionCancelled>(withdrawn).find(
                  "lock '" + std::string(lock_spec.type.view()) + ":" + key_ + "'"),
              std::string::npos)
        << error_of_type<AcquisitionCancelled>(withdrawn);
    EXPECT_TRUE(waiters_reach(1));
    held.release();
    return outcome_of(second);
  }

  std::string url_;
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

// A waiter cancelled after a release woke it, before it could try again, passes the wake to
// the next waiter of its client, which is granted at once rather than when the released
// holder's ttl it was told runs out.
TEST_P(ExpiringAsyncAcquire, AWaiterCancelledAfterAReleaseWokeItPassesTheWakeOn) {
  const auto plain_lock = spec("passed_on", 30s, wait(30s));
  Lease held = client_->acquire(plain_lock, key_);
  AsyncAcquisition first;
  auto cancelled = start_acquisition(*client_, plain_lock, key_, &first);
  ASSERT_TRUE(waiters_reach(1));
  auto second = start_acquisition(*client_, plain_lock, key_);
  ASSERT_TRUE(waiters_reach(2));

  // The client's async thread is kept busy in a handler while the cancellation is posted and
  // the release's wake goes to the first waiter (on memory://, within release()).
  auto in_handler = std::make_shared<std::promise<void>>();
  std::promise<void> leave_handler;
  client_->acquire_async(
      spec("busy", 30s), key_,
      [in_handler, leave = leave_handler.get_future().share()](std::exception_ptr, Lease) {
        in_handler->set_value();
        leave.wait();
      });
  in_handler->get_future().wait();
  first.cancel();
  const auto heard_before = client_->stats().notifications;
  held.release();
  const bool heard = GetParam() == Backend::memory ||
                     eventually([&] { return client_->stats().notifications > heard_before; });
  leave_handler.set_value();
  ASSERT_TRUE(heard) << "the release was not heard";
  EXPECT_NE(error_of_type<AcquisitionCancelled>(outcome_of(cancelled)), "no error");
  ASSERT_EQ(second.wait_for(10s), std::future_status::ready)
      << "the cancelled waiter kept the release's wake";
  Outcome granted = second.get();
  EXPECT_FALSE(granted.error) << error_of_type<Error>(granted);
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

TEST_P(AsyncAcquire, ACancelledWaiterEndsAtOnceAndTakesNothing) {
  const auto lock_spec = spec("cancelled", 30s, wait(30s));
  Lease held = client_->acquire(lock_spec, key_);
  Outcome granted = second_waiter_after_the_first_is_cancelled(lock_spec, held);
  ASSERT_FALSE(granted.error) << error_of_type<Error>(granted);
  granted.lease.release();
  // Had the cancelled waiter gone on, the release would have let it take the lock.
  EXPECT_TRUE(client_->try_acquire(lock_spec, key_).has_value());
  EXPECT_EQ(client_->stats().acquired, 3u);
}

// A pending acquisition does not keep its client open: dropping the client's last owner ends it
// at once as cancelled, and it took nothing.
TEST_P(AsyncAcquire, DroppingTheClientEndsItsWaitersAsCancelled) {
  const auto lock_spec = spec("orphaned", 30s);
  Lease held = client_->acquire(lock_spec, key_);
  auto waiting = Client::connect(url_);
  auto orphaned = start_acquisition(*waiting, lock_spec, key_);
  ASSERT_TRUE(eventually([&] { return waiting->stats().waiting == 1; }));
  waiting.reset();
  Outcome outcome = outcome_of(orphaned);
  EXPECT_NE(error_of_type<AcquisitionCancelled>(outcome).find("the client closed"),
            std::string::npos)
      << error_of_type<AcquisitionCancelled>(outcome);
  held.release();
  EXPECT_TRUE(client_->try_acquire(lock_spec, key_).has_value());
}

// Where every lock kind is: fair locks, read-write locks and semaphores.
class AsyncAcquireEveryKind : public AsyncAcquire {};

TEST_P(AsyncAcquireEveryKind, ACancelledFairWaiterLeavesNoPlaceBehind) {
  const auto fair_lock = spec("fair", 30s, fair);
  Lease held = client_->acquire(fair_lock, key_);
  Outcome granted = second_waiter_after_the_first_is_cancelled(fair_lock, held);
  ASSERT_FALSE(granted.error) << error_of_type<Error>(granted);
  EXPECT_TRUE(granted.lease.valid());
}

TEST_P(AsyncAcquireEveryKind, ACancelledWriterLetsTheReadersItHeldBackIn) {
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

TEST_P(AsyncAcquireEveryKind, ACancelledPermitRequestLeavesThePermitToTheNext) {
  const auto one_permit = spec("slot", 30s, permits(1));
  Lease held = client_->acquire(one_permit, key_);
  Outcome granted = second_waiter_after_the_first_is_cancelled(one_permit, held);
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
// granted in turn as the one before it releases, with a fence above the one before; a release
// wakes one waiter, not every waiter of its lock. Under a sanitizer, a quarter as many: etcd's
// waiters make their round trips one after another on that thread (issue 45), each several
// times slower there, and a thousand took longer than the minute the test waits.
TEST_P(AsyncAcquire, AThousandWaitersNeedNoThreadEach) {
  constexpr int kLocks = 10;
#if defined(DISTLOCK_THREAD_SANITIZER) || defined(DISTLOCK_ADDRESS_SANITIZER)
  constexpr int kWaiters = 250;
#else
  constexpr int kWaiters = 1000;
#endif
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

  // Shared with the handlers: a failed check returns while they may still run.
  struct Crowd {
    std::atomic<int> granted{0};
    std::atomic<int> fences_out_of_order{0};
    std::vector<std::uint64_t> last_fence = std::vector<std::uint64_t>(kLocks, 0);
    std::mutex fences_mutex;
    std::promise<void> all_granted;
  };
  const auto crowd = std::make_shared<Crowd>();
  for (int i = 0; i < kWaiters; ++i) {
    const int lock = i % kLocks;
    client_->acquire_async(spec("crowd", 30s), key_ + "-" + std::to_string(lock),
                           [crowd, lock](std::exception_ptr error, Lease lease) {
                             if (error || !lease.valid()) return;
                             {
                               std::lock_guard guard(crowd->fences_mutex);
                               if (lease.fence() <= crowd->last_fence[lock])
                                 ++crowd->fences_out_of_order;
                               crowd->last_fence[lock] = lease.fence();
                             }
                             if (++crowd->granted == kWaiters) crowd->all_granted.set_value();
                             // The lease goes here: the next waiter's turn.
                           });
  }
  // A thousand take their turns at the server one attempt after another (etcd's are not
  // pipelined): under a sanitizer on a loaded 2-core host that has taken longer than 10 s.
  ASSERT_TRUE(waiters_reach(kWaiters, 60s));
  // Not exactly as many: threads that close earlier tests' clients come and go meanwhile. A
  // thread per waiter would add one per waiter.
  EXPECT_LT(thread_count(), threads_before + 10);
  holders.clear();
  ASSERT_EQ(crowd->all_granted.get_future().wait_for(60s), std::future_status::ready)
      << crowd->granted << " of " << kWaiters << " granted";
  EXPECT_EQ(crowd->fences_out_of_order, 0);
  EXPECT_EQ(client_->stats().waiting, 0u);
  // Each release wakes the next waiter, not the hundred of its lock: a herd would make about
  // fifty thousand wakes, each a try at the server.
  const auto stats = client_->stats();
  EXPECT_LT(stats.woken_by_release + stats.woken_by_timeout, 3u * kWaiters)
      << stats.woken_by_release << " woken by a release, " << stats.woken_by_timeout
      << " by a timer";
}

// Redlock: a lock kind it lacks is the ConfigError acquire() throws, in the handler.
class RedlockAsyncAcquire : public AsyncAcquire {};

TEST_P(RedlockAsyncAcquire, TheLockKindsItLacksAreRefusedAsAcquireRefusesThem) {
  for (const LockSpec& lacking : {spec("kinds", 10s, fair), spec("kinds", 10s, read),
                                  spec("kinds", 10s, write), spec("kinds", 10s, permits(2))}) {
    std::string refused_blocking = "no error";
    try {
      (void)client_->acquire(lacking, key_);
    } catch (const ConfigError& error) {
      refused_blocking = error.what();
    }
    auto refused = start_acquisition(*client_, lacking, key_);
    const std::string refused_async = error_of_type<ConfigError>(outcome_of(refused));
    EXPECT_NE(refused_async.find("need a redis:// (one server, Sentinel or Cluster)"),
              std::string::npos)
        << refused_async;
    EXPECT_EQ(refused_async, refused_blocking);
  }
  EXPECT_EQ(client_->stats().acquired, 0u);
}

// The TLS Cluster and etcds:// run the blocking suites only: the async waits over TLS are
// rediss://'s, the Cluster's are redis_cluster's, etcd's etcd://'s.
bool any(Backend backend) {
  return backend != Backend::rediss_cluster && backend != Backend::etcds;
}
bool with_every_kind(Backend backend) { return any(backend) && has_every_lock_kind(backend); }
// Where a waiter finds its holder's lease run out by its own timer, not by the server's
// deletion of the holder's node or key, which wakes it as a release does.
bool expiring(Backend backend) {
  return any(backend) && backend != Backend::zookeeper && !is_etcd(backend);
}

INSTANTIATE_TEST_SUITE_P(Backends, AsyncAcquire, ::testing::ValuesIn(built_backends(any)),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, AsyncAcquireEveryKind,
                         ::testing::ValuesIn(built_backends(with_every_kind)), backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, ExpiringAsyncAcquire,
                         ::testing::ValuesIn(built_backends(expiring)), backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, RedlockAsyncAcquire,
                         ::testing::ValuesIn(built_backends(is_redlock)), backend_name);

// A handler that throws does not take the client's async thread down: the exception is logged
// and the next acquisition is served.
TEST(AsyncAcquireHandler, AnExceptionItLetsOutIsLoggedAndTheClientGoesOn) {
  auto client = Client::connect("memory://" + unique_name("throwing"));
  const CapturedLog log;
  Event thrown;
  client->acquire_async(spec("throwing", 10s), "a", [&](std::exception_ptr, Lease) {
    thrown.set();
    throw std::runtime_error("the handler's own failure");
  });
  ASSERT_TRUE(thrown.wait_for(30s));
  auto next = start_acquisition(*client, spec("throwing", 10s), "b");
  Outcome outcome = outcome_of(next);
  EXPECT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  const auto lines = log.lines();
  EXPECT_NE(std::find_if(lines.begin(), lines.end(),
                         [](const std::string& line) {
                           return line.find(
                                      "an acquire_async handler threw: the handler's own "
                                      "failure") != std::string::npos;
                         }),
            lines.end());
}

// Once its handler has let the caller go on, an acquisition owns nothing of the client: a
// client its caller drops then closes on the caller's thread, within the drop. (An owner kept
// past the handler could be the last, dropped on the client's own thread, which would leave
// the client to close on a thread of its own, perhaps while the process exits; that close says
// so in the log.) Rounds, since the handler's return races the caller's drop.
TEST(AsyncAcquireHandler, AClientDroppedAfterTheHandlerClosesOnTheDroppingThread) {
  constexpr int kRounds = 200;
  constexpr std::string_view kClosedElsewhere = "closes on a thread of its own";
  const CapturedLog log;
  const int threads_before = thread_count();
  for (int round = 0; round < kRounds; ++round) {
    auto client = Client::connect("memory://" + unique_name("dropped"));
    auto granted = start_acquisition(*client, spec("dropped", 10s), "a");
    Outcome outcome = outcome_of(granted);
    ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
    outcome.lease.release();
    outcome = {};
    client.reset();
    for (const auto& line : log.lines())
      ASSERT_EQ(line.find(kClosedElsewhere), std::string::npos) << "round " << round;
  }
  // A joined thread stays listed in /proc for a moment after its join returns.
  EXPECT_TRUE(eventually([&] { return thread_count() == threads_before; }));
}

// The outcomes of acquisitions that end in an order not known beforehand, as they come.
class Arrivals {
 public:
  Client::AcquireHandler handler() {
    return [this](std::exception_ptr error, Lease lease) {
      std::lock_guard lock(mutex_);
      arrived_.push_back({std::move(error), std::move(lease), std::this_thread::get_id()});
      changed_.notify_all();
    };
  }
  // The next outcome; throws if none comes within 30 s.
  Outcome next() {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, 30s, [this] { return !arrived_.empty(); }))
      throw std::runtime_error("no acquisition's handler was called within 30 s");
    Outcome outcome = std::move(arrived_.front());
    arrived_.pop_front();
    return outcome;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Outcome> arrived_;
};

// Asynchronous waiters listen through the first master (the first that answers); it dies, and
// the holder's release reaches the two others: each waiter is granted in turn by those two, a
// majority, as the one before it releases. Waiters that kept listening through the dead master
// would sleep until the holder's ttl or their wait ran out (60 s), past the 30 s allowed each.
TEST(AsyncAcquireRedlock, WaitersAreGrantedByTheMajorityLeftWhenAMasterDies) {
  constexpr int kWaiters = 3;
  std::vector<std::unique_ptr<RedisServer>> masters;
  std::string url = "redis+redlock://";
  for (int i = 0; i < 3; ++i) {
    const auto& master = masters.emplace_back(std::make_unique<RedisServer>());
    url += (i == 0 ? "127.0.0.1:" : ",127.0.0.1:") + std::to_string(master->port());
  }
  auto client = Client::connect(url);
  const auto lock_spec = spec("majority", 60s, wait(60s));
  const std::string hash = "distlock:{majority:a}";
  Lease held = client->acquire(lock_spec, "a");
  Arrivals arrivals;
  for (int i = 0; i < kWaiters; ++i) client->acquire_async(lock_spec, "a", arrivals.handler());
  ASSERT_TRUE(eventually([&] { return client->stats().waiting == kWaiters; }));

  masters[0].reset();
  held.release();
  std::uint64_t previous_fence = held.fence();
  for (int granted = 0; granted < kWaiters; ++granted) {
    Outcome outcome = arrivals.next();
    ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
    EXPECT_GT(outcome.lease.fence(), previous_fence);
    previous_fence = outcome.lease.fence();
    EXPECT_EQ(masters[1]->cli({"EXISTS", hash}), "1");
    EXPECT_EQ(masters[2]->cli({"EXISTS", hash}), "1");
    outcome.lease.release();
  }
  EXPECT_EQ(client->stats().waiting, 0u);
}

// On the connection the lock commands share, a waiter's try goes out and its reply is read with
// the other waiters' (attempt_pipeline.h): a cancellation that comes while it is out waits for
// it. A try that wins gives the acquisition its lease, as a cancel after the grant would find it;
// one that finds the lock busy ends it cancelled, and the fair queue place it took is withdrawn.
// The server is stopped while both tries are out, so both cancellations come before the replies.
TEST(AsyncAcquirePipelined, ACancelWhileTheTryIsOutEndsAsTheTryEnds) {
  RedisServer server;
  auto client = Client::connect(server.url());
  auto holder = Client::connect(server.url());
  const auto free_spec = spec("pipelined-free", 30s, wait(30s));
  const auto fair_spec = spec("pipelined-fair", 30s, fair, wait(30s));
  Lease held = holder->acquire(fair_spec, "k");
  // The client's thread and connections are up first, so each try goes out at once.
  auto warm = start_acquisition(*client, spec("pipelined-warm", 30s), "k");
  ASSERT_FALSE(outcome_of(warm).error);

  ASSERT_EQ(::kill(server.pid(), SIGSTOP), 0);
  AsyncAcquisition on_free;
  AsyncAcquisition on_busy;
  auto granted = start_acquisition(*client, free_spec, "k", &on_free);
  auto cancelled = start_acquisition(*client, fair_spec, "k", &on_busy);
  on_free.cancel();
  on_busy.cancel();
  ASSERT_EQ(::kill(server.pid(), SIGCONT), 0);

  Outcome won = outcome_of(granted);
  ASSERT_FALSE(won.error) << error_of_type<Error>(won);
  EXPECT_TRUE(won.lease.valid());
  EXPECT_FALSE(holder->try_acquire(free_spec, "k").has_value());

  Outcome withdrawn = outcome_of(cancelled);
  EXPECT_NE(error_of_type<AcquisitionCancelled>(withdrawn).find("lock 'pipelined-fair:k'"),
            std::string::npos)
      << error_of_type<AcquisitionCancelled>(withdrawn);
  held.release();
  // A place left in the fair queue would hold this try back for the ttl.
  EXPECT_TRUE(holder->try_acquire(fair_spec, "k").has_value());
}

}  // namespace
}  // namespace distlock::testing
