// SPDX-License-Identifier: Apache-2.0
// Client::acquire_async on ZooKeeper as the nodes show it (a plain ZooKeeper client looks): a
// withdrawn waiter's contender node, and a withdrawn permit request's lease and mutex nodes, are
// gone when its handler runs, so the next waiter is granted by the release with nothing waited
// out; a waiter whose deadline passes deletes its node; asynchronous waiters are woken one per
// release, not as a herd; and a waiter whose session expires contends again in the next
// session. One ZooKeeper for the suite; distlock clients ask for a 4 s session.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <distlock/distlock.h>

#include "async_outcome.h"
#include "integration_helpers.h"
#include "tcp_proxy.h"
#include "zookeeper_client.h"
#include "zookeeper_helpers.h"
#include "zookeeper_suite.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// Contender or lease node names in lock order: by the sequence number that ends them.
std::vector<std::string> in_lock_order(std::vector<std::string> names) {
  static constexpr std::size_t kSequenceDigits = 10;
  const auto sequence = [](const std::string& name) {
    return name.substr(name.size() - std::min(name.size(), kSequenceDigits));
  };
  std::sort(names.begin(), names.end(),
            [&](const std::string& a, const std::string& b) { return sequence(a) < sequence(b); });
  return names;
}

class ZooKeeperAsync : public ZooKeeperSuiteTest {
 protected:
  void SetUp() override {
    ZooKeeperSuiteTest::SetUp();
    if (HasFatalFailure()) return;
    holder_ = connect();
    waiters_ = connect();
    key_ = unique_name("key");
  }

  bool waiters_reach(std::uint64_t count) const {
    return eventually([&] { return waiters_->stats().waiting == count; });
  }

  std::shared_ptr<Client> holder_;
  std::shared_ptr<Client> waiters_;
  std::string key_;
};

TEST_F(ZooKeeperAsync, AWithdrawnWaitersNodeIsGoneAndTheNextIsGrantedByTheRelease) {
  const std::string path = zk_lock_path("queue", key_);
  const auto lock_spec = spec("queue", 30s, wait(60s));
  Lease held = holder_->acquire(lock_spec, key_);
  AsyncAcquisition first;
  auto withdrawn = start_acquisition(*waiters_, lock_spec, key_, &first);
  ASSERT_TRUE(waiters_reach(1));
  auto second = start_acquisition(*waiters_, lock_spec, key_);
  ASSERT_TRUE(waiters_reach(2));
  const auto queued = in_lock_order(raw().children(path));
  ASSERT_EQ(queued.size(), 3u) << "not one contender node each for the holder and two waiters";

  first.cancel();
  Outcome cancelled = outcome_of(withdrawn);
  EXPECT_NE(error_of_type<AcquisitionCancelled>(cancelled).find("lock 'queue:" + key_ + "'"),
            std::string::npos)
      << error_of_type<AcquisitionCancelled>(cancelled);
  // Deleted before the handler was called.
  EXPECT_EQ(in_lock_order(raw().children(path)), (std::vector<std::string>{queued[0], queued[2]}))
      << "the withdrawn waiter's node stayed";

  // Had the first's node stayed, the second would wait behind it for its 60 s.
  held.release();
  Outcome granted = outcome_of(second);
  ASSERT_FALSE(granted.error) << error_of_type<Error>(granted);
  const auto node = raw().stat(path + "/" + queued[2]);
  ASSERT_TRUE(node.has_value()) << "the second waiter holds the lock without its node";
  EXPECT_EQ(granted.lease.fence(), static_cast<std::uint64_t>(node->czxid));
  EXPECT_EQ(waiters_->stats().woken_by_timeout, 0u);
  EXPECT_EQ(waiters_->stats().waiting, 0u);
}

TEST_F(ZooKeeperAsync, AWaiterWhoseDeadlinePassesDeletesItsNodeAndTimesOut) {
  const std::string path = zk_lock_path("deadline", key_);
  Lease held = holder_->acquire(spec("deadline", 30s), key_);
  const auto holder_only = raw().children(path);
  ASSERT_EQ(holder_only.size(), 1u);

  const auto started = Clock::now();
  auto waiting = start_acquisition(*waiters_, spec("deadline", 30s, wait(500ms)), key_);
  ASSERT_TRUE(waiters_reach(1));
  EXPECT_EQ(raw().children(path).size(), 2u) << "the waiter has no node of its own";
  Outcome outcome = outcome_of(waiting);
  EXPECT_GE(Clock::now() - started, 500ms);
  EXPECT_NE(error_of_type<LockTimeout>(outcome).find("lock 'deadline:" + key_ + "'"),
            std::string::npos)
      << error_of_type<LockTimeout>(outcome);
  EXPECT_EQ(raw().children(path), holder_only) << "the waiter that gave up left its node";
  EXPECT_EQ(waiters_->stats().woken_by_timeout, 1u);
  EXPECT_EQ(waiters_->stats().timeouts, 1u);
  EXPECT_EQ(waiters_->stats().waiting, 0u);
  EXPECT_TRUE(held.valid());
}

TEST_F(ZooKeeperAsync, AWithdrawnPermitRequestDeletesItsLeaseAndGivesTheMutexBack) {
  const std::string path = zk_lock_path("pool", key_);
  const auto one_permit = spec("pool", 30s, permits(1), wait(60s));
  Lease held = holder_->acquire(one_permit, key_);
  AsyncAcquisition request;
  auto withdrawn = start_acquisition(*waiters_, one_permit, key_, &request);
  ASSERT_TRUE(waiters_reach(1));
  // It waits holding the mutex, its lease one beyond the permit.
  EXPECT_EQ(raw().children(path + "/leases").size(), 2u);
  EXPECT_EQ(raw().children(path + "/locks").size(), 1u);

  request.cancel();
  Outcome cancelled = outcome_of(withdrawn);
  EXPECT_NE(error_of_type<AcquisitionCancelled>(cancelled).find("lock 'pool:" + key_ + "'"),
            std::string::npos)
      << error_of_type<AcquisitionCancelled>(cancelled);
  EXPECT_EQ(raw().children(path + "/leases").size(), 1u) << "the withdrawn lease node stayed";
  EXPECT_TRUE(raw().children(path + "/locks").empty()) << "the mutex was not given back";

  // The next request takes the mutex and waits for the permit, which the release gives it.
  auto next = start_acquisition(*waiters_, one_permit, key_);
  ASSERT_TRUE(waiters_reach(1));
  held.release();
  Outcome granted = outcome_of(next);
  ASSERT_FALSE(granted.error) << error_of_type<Error>(granted);
  EXPECT_EQ(raw().children(path + "/leases").size(), 1u);
  EXPECT_EQ(waiters_->stats().woken_by_timeout, 0u);
}

// Each release fires the one watch of the waiter right behind it: as many notifications as
// waiters, however many wait, and the grants in queue order.
TEST_F(ZooKeeperAsync, AsynchronousWaitersAreWokenOnePerRelease) {
  constexpr int kWaiters = 20;
  const auto lock_spec = spec("herd", 30s, wait(120s));
  Lease first = holder_->acquire(lock_spec, key_);

  std::mutex mutex;
  std::vector<std::uint64_t> fences;
  std::atomic<int> failures{0};
  Event all_granted;
  for (int i = 0; i < kWaiters; ++i) {
    waiters_->acquire_async(lock_spec, key_, [&](std::exception_ptr error, Lease lease) {
      if (error) ++failures;
      std::lock_guard lock(mutex);
      if (!error) fences.push_back(lease.fence());
      if (static_cast<int>(fences.size()) + failures == kWaiters) all_granted.set();
      // The lease goes here: the next waiter's turn.
    });
  }
  ASSERT_TRUE(waiters_reach(kWaiters));
  const auto notified_before = waiters_->stats().notifications;
  first.release();
  ASSERT_TRUE(all_granted.wait_for(60s));
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(waiters_->stats().notifications - notified_before, static_cast<std::uint64_t>(kWaiters))
      << "a release woke more than the waiter behind it";
  std::lock_guard lock(mutex);
  EXPECT_TRUE(std::is_sorted(fences.begin(), fences.end())) << "granted out of queue order";
  EXPECT_GT(fences.front(), first.fence());
}

// The waiter's session expires behind a partition: its node goes with it, and once the partition
// heals it contends again in the client's next session, behind the holder, which the release
// then grants it.
TEST_F(ZooKeeperAsync, AWaiterWhoseSessionExpiresContendsAgainInTheNext) {
  const std::string path = zk_lock_path("expiry", key_);
  const auto lock_spec = spec("expiry", 30s, wait(120s));
  TcpProxy proxy(server().port());
  auto partitioned = Client::connect(with_session_timeout("zookeeper://" + proxy.address()));
  Lease held = holder_->acquire(lock_spec, key_);
  auto waiting = start_acquisition(*partitioned, lock_spec, key_);
  ASSERT_TRUE(eventually([&] { return partitioned->stats().waiting == 1; }));
  const auto queued = in_lock_order(raw().children(path));
  ASSERT_EQ(queued.size(), 2u);
  std::optional<NodeStat> before;
  auto deleted = raw().watch(path + "/" + queued[1], &before);
  ASSERT_TRUE(before.has_value());

  struct Thaw {
    TcpProxy& proxy;
    ~Thaw() { proxy.thaw(); }
  } thaw{proxy};
  proxy.freeze();
  ASSERT_TRUE(deleted->wait_for(30s).has_value()) << "the server never expired the session";
  proxy.thaw();

  const auto contends_again = [&] {
    const auto children = in_lock_order(raw().children(path));
    if (children.size() != 2 || children[0] != queued[0]) return false;
    const auto stat = raw().stat(path + "/" + children[1]);
    return stat && stat->ephemeral_owner != before->ephemeral_owner;
  };
  ASSERT_TRUE(eventually(contends_again, 30s))
      << "the waiter did not contend again in a new session";
  EXPECT_EQ(waiting.wait_for(0s), std::future_status::timeout)
      << "it ended while the lock was held";

  held.release();
  Outcome granted = outcome_of(waiting);
  ASSERT_FALSE(granted.error) << error_of_type<Error>(granted);
  const auto children = raw().children(path);
  ASSERT_EQ(children.size(), 1u);
  const auto node = raw().stat(path + "/" + children[0]);
  ASSERT_TRUE(node.has_value());
  EXPECT_NE(node->ephemeral_owner, before->ephemeral_owner);
  EXPECT_EQ(granted.lease.fence(), static_cast<std::uint64_t>(node->czxid));
  EXPECT_TRUE(granted.lease.valid());
}

}  // namespace
}  // namespace distlock::testing
