// SPDX-License-Identifier: Apache-2.0
// Who may destroy a client's core, and on which thread (runtime/core/client_core.h): never the
// renewal thread, and never a thread that merely once held one of its leases.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

#include "core/renewal_queue.h"

namespace distlock {
namespace {

using namespace std::chrono_literals;

// The renewal threads alive right now: each client core runs one.
std::size_t renewal_threads() {
  std::size_t count = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name) && name == detail::RenewalQueue::kThreadName) ++count;
  }
  return count;
}

// A thread that acquires on request and then stays alive, parked, so that its thread_local
// state outlives what it handed over.
class ParkedThread {
 public:
  template <class Work>
  explicit ParkedThread(Work work)
      : thread_([this, work = std::move(work)]() mutable {
          work();
          std::unique_lock lock(mutex_);
          done_ = true;
          changed_.notify_all();
          changed_.wait(lock, [this] { return leave_; });
        }) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return done_; });
  }
  ~ParkedThread() {
    {
      std::lock_guard lock(mutex_);
      leave_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool done_ = false;
  bool leave_ = false;
  std::thread thread_;
};

// Many short-lived clients whose leases are released, and the client dropped, while its
// renewal thread may be renewing them: a ttl of a few milliseconds keeps a renewal due at
// almost any moment, and a batch of many leases keeps it in flight longer. Before the fix the
// last reference to the core could go with the renewal thread's batch, which then destroyed
// the core (and joined itself) on that thread.
TEST(ClientLifetime, ReleaseAndDropRacingRenewals) {
  constexpr int kThreads = 4;
  constexpr int kClientsPerThread = 150;
  constexpr int kLeasesPerClient = 32;
  constexpr auto stress_lock = spec("lifetime-stress", 3ms);
  std::atomic<std::uint64_t> renewals{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(static_cast<unsigned>(t));
      std::uniform_int_distribution<int> hold_us(0, 2000);
      for (int i = 0; i < kClientsPerThread; ++i) {
        auto client = Client::connect("memory://lifetime-stress");
        {
          std::vector<Lease> leases;
          for (int k = 0; k < kLeasesPerClient; ++k)
            leases.push_back(client->acquire(stress_lock, key_of(t, i, k)));
          std::this_thread::sleep_for(std::chrono::microseconds(hold_us(random)));
          std::shuffle(leases.begin(), leases.end(), random);
          for (auto& lease : leases) {
            try {
              lease.release();
            } catch (const LockLost&) {
              // A starved renewal thread lets a 3 ms lease run out: not what this is about.
            }
          }
        }
        renewals += client->stats().renewals;
        client.reset();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  // The renewals raced the releases: without them the test would prove nothing.
  EXPECT_GT(renewals.load(), 0u);
}

TEST(ClientLifetime, LeaseReleasedOnAnotherThreadDoesNotKeepTheClient) {
  const std::size_t before = renewal_threads();
  auto client = Client::connect("memory://lifetime-handover");
  ASSERT_EQ(renewal_threads(), before + 1) << "one renewal thread per client";

  std::optional<Lease> handed_over;
  {
    ParkedThread acquirer([&] {
      handed_over.emplace(client->acquire(spec("handover", 30s)));
      ASSERT_TRUE(handed_over->valid());
    });
    handed_over->release();
    handed_over.reset();
    client.reset();
    // The acquiring thread is still alive and its held-lease list still names the lease (moved
    // away, so handed over: kept until released);
    // the client's renewal thread must be gone.
    EXPECT_EQ(renewal_threads(), before)
        << "the client's renewal thread outlived the client and every lease it granted";
  }
}

TEST(ClientLifetime, LostCallbackOfAReleasedLeaseDoesNotKeepTheClient) {
  const std::size_t before = renewal_threads();
  auto client = Client::connect("memory://lifetime-callback");
  std::optional<Lease> handed_over;
  {
    ParkedThread acquirer([&] {
      handed_over.emplace(client->acquire(spec("callback", 30s)));
      // A callback that owns the client: it must go when the lease is released.
      handed_over->on_lost([client](const LockLost&) {});
    });
    handed_over->release();
    handed_over.reset();
    client.reset();
    EXPECT_EQ(renewal_threads(), before);
  }
}

TEST(ClientLifetime, ReleaseDropsTheLostCallback) {
  auto client = Client::connect("memory://lifetime-released");
  const auto owned_by_callback = std::make_shared<int>(0);
  Lease lease = client->acquire(spec("released", 30s));
  lease.on_lost([owned_by_callback](const LockLost&) {});
  EXPECT_EQ(owned_by_callback.use_count(), 2);
  lease.release();
  EXPECT_EQ(owned_by_callback.use_count(), 1) << "the released lease kept its lost callback";
  // Too late to be called: not kept either.
  lease.on_lost([owned_by_callback](const LockLost&) {});
  EXPECT_EQ(owned_by_callback.use_count(), 1) << "a released lease took a lost callback";
}

}  // namespace
}  // namespace distlock
