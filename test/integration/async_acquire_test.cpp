// SPDX-License-Identifier: Apache-2.0
// Client::acquire_async on memory://: the handler is called once, off the caller's thread,
// with the lease or why there is none; a waiter is woken by the release, not by a thread of
// its own; a cancelled waiter leaves no fair queue place, writer intent or permit request
// behind. Waiters start waiting in a known order by watching the client's count of waiters.
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

#include "integration_helpers.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// What one asynchronous acquisition ended with, and on which thread.
struct Outcome {
  std::exception_ptr error;
  Lease lease;
  std::thread::id thread;
};

// Starts an acquisition whose outcome the returned future gets.
std::future<Outcome> start(Client& client, const LockSpec& spec, const std::string& key,
                           AsyncAcquisition* handle = nullptr) {
  auto promise = std::make_shared<std::promise<Outcome>>();
  auto future = promise->get_future();
  AsyncAcquisition started =
      client.acquire_async(spec, key, [promise](std::exception_ptr error, Lease lease) {
        promise->set_value({error, std::move(lease), std::this_thread::get_id()});
      });
  if (handle != nullptr) *handle = started;
  return future;
}

Outcome outcome_of(std::future<Outcome>& future) {
  if (future.wait_for(30s) != std::future_status::ready)
    throw std::runtime_error("the acquisition's handler was not called within 30 s");
  return future.get();
}

template <class ErrorType>
std::string error_of_type(const Outcome& outcome) {
  if (!outcome.error) return "no error";
  try {
    std::rethrow_exception(outcome.error);
  } catch (const ErrorType& error) {
    return error.what();
  } catch (const std::exception& error) {
    return std::string("another error: ") + error.what();
  }
}

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

class AsyncAcquire : public ::testing::Test {
 protected:
  // A memory:// name per test keeps the tests' locks apart.
  void SetUp() override { client_ = Client::connect("memory://" + unique_name("async")); }

  bool waiters_reach(std::uint64_t count) {
    return eventually([&] { return client_->stats().waiting == count; });
  }

  std::shared_ptr<Client> client_;
};

TEST_F(AsyncAcquire, AFreeLockIsGrantedToTheHandlerOnAnotherThread) {
  auto granted = start(*client_, spec("free", 10s), "a");
  Outcome outcome = outcome_of(granted);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  EXPECT_NE(outcome.thread, std::this_thread::get_id());
  EXPECT_TRUE(outcome.lease.valid());
  EXPECT_EQ(outcome.lease.name(), "free:a");
  EXPECT_EQ(client_->stats().acquired, 1u);
  // The lease belongs to no thread: this thread does not see it as its own.
  EXPECT_FALSE(client_->try_acquire(spec("free", 10s), "a").has_value());
}

TEST_F(AsyncAcquire, AWaiterIsGrantedByTheRelease) {
  Lease held = client_->acquire(spec("released", 10s), "a");
  auto waiting = start(*client_, spec("released", 10s), "a");
  ASSERT_TRUE(waiters_reach(1));
  held.release();
  Outcome outcome = outcome_of(waiting);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  EXPECT_GT(outcome.lease.fence(), held.fence());
  EXPECT_EQ(client_->stats().woken_by_release, 1u);
  EXPECT_EQ(client_->stats().woken_by_timeout, 0u);
  EXPECT_EQ(client_->stats().waiting, 0u);
}

TEST_F(AsyncAcquire, AWaiterWhoseHolderExpiresIsGrantedByItsTimer) {
  Lease held = client_->acquire(spec("expiring", 300ms, renew(false)), "a");
  auto waiting = start(*client_, spec("expiring", 10s), "a");
  Outcome outcome = outcome_of(waiting);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  EXPECT_FALSE(held.valid());
  EXPECT_GE(client_->stats().woken_by_timeout, 1u);
  EXPECT_THROW(held.release(), LockLost);
}

TEST_F(AsyncAcquire, AWaitThatRunsOutIsALockTimeout) {
  Lease held = client_->acquire(spec("busy", 30s), "a");
  auto waiting = start(*client_, spec("busy", 30s, wait(200ms)), "a");
  Outcome outcome = outcome_of(waiting);
  EXPECT_NE(error_of_type<LockTimeout>(outcome).find("lock 'busy:a'"), std::string::npos)
      << error_of_type<LockTimeout>(outcome);
  EXPECT_THROW((void)outcome.lease.name(), std::logic_error);
  EXPECT_EQ(client_->stats().timeouts, 1u);
  EXPECT_EQ(client_->stats().waiting, 0u);
}

TEST_F(AsyncAcquire, ABadSpecIsAConfigErrorInTheHandler) {
  LockSpec bad = spec("bad", 10s);
  bad.ttl = Millis{0};
  auto refused = start(*client_, bad, "a");
  Outcome outcome = outcome_of(refused);
  EXPECT_NE(error_of_type<ConfigError>(outcome).find("ttl"), std::string::npos)
      << error_of_type<ConfigError>(outcome);
}

TEST_F(AsyncAcquire, ACancelledFairWaiterLeavesNoPlaceBehind) {
  const auto fair_lock = spec("fair", 30s, fair);
  Lease held = client_->acquire(fair_lock, "a");
  AsyncAcquisition first;
  auto cancelled = start(*client_, fair_lock, "a", &first);
  ASSERT_TRUE(waiters_reach(1));
  auto second = start(*client_, fair_lock, "a");
  ASSERT_TRUE(waiters_reach(2));
  first.cancel();
  Outcome withdrawn = outcome_of(cancelled);
  EXPECT_NE(error_of_type<AcquisitionCancelled>(withdrawn).find("lock 'fair:a'"), std::string::npos)
      << error_of_type<AcquisitionCancelled>(withdrawn);
  ASSERT_TRUE(waiters_reach(1));
  // Had the first kept its place, the second would wait behind it until its wait ran out.
  held.release();
  Outcome granted = outcome_of(second);
  ASSERT_FALSE(granted.error) << error_of_type<Error>(granted);
  EXPECT_TRUE(granted.lease.valid());
}

TEST_F(AsyncAcquire, ACancelledWriterLetsTheReadersItHeldBackIn) {
  Lease reading = client_->acquire(spec("report", 30s, read), "a");
  AsyncAcquisition writer;
  auto writing = start(*client_, spec("report", 30s, write), "a", &writer);
  ASSERT_TRUE(waiters_reach(1));
  // A waiting writer holds new readers back.
  auto second_reader = start(*client_, spec("report", 30s, read), "a");
  ASSERT_TRUE(waiters_reach(2));
  writer.cancel();
  EXPECT_NE(error_of_type<AcquisitionCancelled>(outcome_of(writing)), "no error");
  Outcome read_granted = outcome_of(second_reader);
  ASSERT_FALSE(read_granted.error) << error_of_type<Error>(read_granted);
  EXPECT_TRUE(reading.valid());
  EXPECT_TRUE(read_granted.lease.valid());
}

TEST_F(AsyncAcquire, ACancelledPermitRequestLeavesThePermitToTheNext) {
  const auto one_permit = spec("slot", 30s, permits(1));
  Lease held = client_->acquire(one_permit, "a");
  AsyncAcquisition first;
  auto cancelled = start(*client_, one_permit, "a", &first);
  ASSERT_TRUE(waiters_reach(1));
  auto second = start(*client_, one_permit, "a");
  ASSERT_TRUE(waiters_reach(2));
  first.cancel();
  EXPECT_NE(error_of_type<AcquisitionCancelled>(outcome_of(cancelled)), "no error");
  held.release();
  Outcome granted = outcome_of(second);
  ASSERT_FALSE(granted.error) << error_of_type<Error>(granted);
}

TEST_F(AsyncAcquire, ACancelAfterTheGrantDoesNothing) {
  AsyncAcquisition handle;
  auto granted = start(*client_, spec("kept", 10s), "a", &handle);
  Outcome outcome = outcome_of(granted);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  handle.cancel();
  EXPECT_TRUE(outcome.lease.valid());
  EXPECT_FALSE(client_->try_acquire(spec("kept", 10s), "a").has_value());
}

// A thousand waiters on ten locks: one thread of the client's serves them all, and each is
// granted in turn as the one before it releases, with a fence above the one before.
TEST_F(AsyncAcquire, AThousandWaitersNeedNoThreadEach) {
  constexpr int kLocks = 10;
  constexpr int kWaiters = 1000;
  std::vector<Lease> holders;
  for (int i = 0; i < kLocks; ++i)
    holders.push_back(client_->acquire(spec("crowd", 30s), std::to_string(i)));
  // The first acquisition starts the client's async thread; measure after it.
  Outcome warm = [&] {
    auto warmup = start(*client_, spec("warmup", 30s), "a");
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
    client_->acquire_async(spec("crowd", 30s), std::to_string(lock),
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
  // Not equal: a thread that closed an earlier test's client may have ended since.
  EXPECT_LE(thread_count(), threads_before);
  holders.clear();
  ASSERT_EQ(all_granted.get_future().wait_for(60s), std::future_status::ready)
      << granted << " of " << kWaiters << " granted";
  EXPECT_EQ(fences_out_of_order, 0);
  EXPECT_EQ(client_->stats().waiting, 0u);
}

TEST(AsyncAcquireElsewhere, AServerWithoutItSaysSoInTheHandler) {
  RedisServer server;
  auto client = Client::connect(server.url());
  auto refused = start(*client, spec("elsewhere", 10s), "a");
  Outcome outcome = outcome_of(refused);
  EXPECT_NE(error_of_type<ConfigError>(outcome).find("memory:// has it"), std::string::npos)
      << error_of_type<ConfigError>(outcome);
}

}  // namespace
}  // namespace distlock::testing
