// SPDX-License-Identifier: Apache-2.0
// The lock kinds of issue 13 on memory://: read-write locks, semaphores (permits) and fair
// locks, with the semantics of the Redis backend's. Each test has a memory:// name of its own.
// Threads start waiting in a known order by watching the client's count of waiting callers.
#include <gtest/gtest.h>

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

#include <distlock/distlock.h>

#include "holder_thread.h"
#include "integration_helpers.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// True if another thread (another owner) gets the lock without waiting; it releases at once.
bool another_thread_gets(Client& client, const LockSpec& spec, const std::string& key) {
  bool taken = false;
  std::thread other([&] { taken = client.try_acquire(spec, key).has_value(); });
  other.join();
  return taken;
}

class MemoryKinds : public ::testing::Test {
 protected:
  void SetUp() override {
    // Clients with one memory:// name share locks; a name per test keeps tests apart.
    url_ = "memory://" + unique_name("kinds");
  }

  std::shared_ptr<Client> connect() { return Client::connect(url_); }
  bool waiting_count_reaches(Client& client, std::uint64_t count) {
    return eventually([&] { return client.stats().waiting == count; });
  }

  std::string url_;
  const std::string key_ = "k";
  static constexpr std::string_view type_ = "kinds";
  const LockSpec read_ = spec(type_, 30s, distlock::read, wait(20s));
  const LockSpec write_ = spec(type_, 30s, distlock::write, wait(20s));
};

TEST_F(MemoryKinds, ReadersShareTheLockAndExcludeWriters) {
  auto client = connect();
  Lease reader = client->acquire(read_, key_);
  Holder other_reader(*client, read_, key_);
  ASSERT_TRUE(other_reader.granted_within(5s)) << "a second reader waited for the first";
  EXPECT_FALSE(another_thread_gets(*client, write_, key_)) << "a writer got in with readers";

  reader.release();
  EXPECT_FALSE(another_thread_gets(*client, write_, key_)) << "one reader is left";
  other_reader.release();
  Holder writer(*client, write_, key_);
  ASSERT_TRUE(writer.granted_within(5s));
  EXPECT_FALSE(another_thread_gets(*client, read_, key_)) << "a reader got in with a writer";
  EXPECT_FALSE(another_thread_gets(*client, write_, key_)) << "two writers at once";
}

TEST_F(MemoryKinds, AWaitingWriterHoldsNewReadersBackAndGetsInWhenTheReadersGo) {
  auto client = connect();
  Lease reader = client->acquire(read_, key_);
  Holder writer(*client, write_, key_);
  ASSERT_TRUE(waiting_count_reaches(*client, 1)) << "the writer never started waiting";

  EXPECT_FALSE(another_thread_gets(*client, read_, key_))
      << "a new reader got in while a writer waits: writers could starve";
  // A reader that already reads goes on: holding it back would not let the writer in.
  auto reentered = client->try_acquire(read_, key_);
  ASSERT_TRUE(reentered.has_value()) << "a reentrant read waited behind the writer";
  EXPECT_GT(reentered->fence(), reader.fence()) << "each read has a fence of its own";
  EXPECT_FALSE(writer.granted_within(0ms));

  reentered->release();
  EXPECT_FALSE(writer.granted_within(0ms)) << "the writer got in while a reader holds the lock";
  reader.release();
  ASSERT_TRUE(writer.granted_within(5s)) << "the writer did not get in when the readers went";
  EXPECT_GT(writer.fence(), reader.fence());
  writer.release();
  EXPECT_TRUE(another_thread_gets(*client, read_, key_));
}

TEST_F(MemoryKinds, TheWriterReadsWhatItHoldsAndNobodyElseDoes) {
  auto client = connect();
  Lease written = client->acquire(write_, key_);
  auto read_too = client->try_acquire(read_, key_);
  ASSERT_TRUE(read_too.has_value()) << "the write holder could not read";
  EXPECT_GT(read_too->fence(), written.fence());
  EXPECT_FALSE(another_thread_gets(*client, read_, key_));

  // The writer's read outlives its write: then it is one reader among others.
  written.release();
  EXPECT_TRUE(another_thread_gets(*client, read_, key_));
  EXPECT_FALSE(another_thread_gets(*client, write_, key_));
}

TEST_F(MemoryKinds, AnUpgradeFromReadToWriteIsAConfigError) {
  auto client = connect();
  Lease reader = client->acquire(read_, key_);
  EXPECT_THROW(client->acquire(write_, key_), ConfigError);
  EXPECT_TRUE(reader.valid());
}

TEST_F(MemoryKinds, FencesIncreaseAcrossWritersAndReaders) {
  auto client = connect();
  std::uint64_t previous = 0;
  {
    Lease writer = client->acquire(write_, key_);
    Lease reentered = client->acquire(write_, key_);
    EXPECT_EQ(reentered.fence(), writer.fence()) << "a reentrant write shares the fence";
    previous = writer.fence();
  }
  Lease reader = client->acquire(read_, key_);
  EXPECT_GT(reader.fence(), previous);
  Holder other_reader(*client, read_, key_);
  ASSERT_TRUE(other_reader.granted_within(5s));
  EXPECT_GT(other_reader.fence(), reader.fence());
  previous = other_reader.fence();
  reader.release();
  other_reader.release();
  Lease writer = client->acquire(write_, key_);
  EXPECT_GT(writer.fence(), previous);
}

TEST_F(MemoryKinds, ReadWriteExclusiveAndSemaphoreOfOneNameAreSeparateLocks) {
  auto client = connect();
  Lease exclusive = client->acquire(spec(type_, 30s), key_);
  EXPECT_TRUE(another_thread_gets(*client, write_, key_));
  EXPECT_TRUE(another_thread_gets(*client, spec(type_, 30s, permits(1)), key_));
  Lease writer = client->acquire(write_, key_);
  EXPECT_FALSE(another_thread_gets(*client, spec(type_, 30s), key_));
  EXPECT_GT(writer.fence(), exclusive.fence());
}

TEST_F(MemoryKinds, ThreePermitsAreGrantedAndTheFourthWaitsForARelease) {
  auto client = connect();
  const auto semaphore = spec(type_, 30s, permits(3), wait(20s));
  // One thread takes all three: a semaphore is not reentered, each acquisition is a permit.
  std::vector<Lease> held;
  for (int i = 0; i < 3; ++i) {
    auto lease = client->try_acquire(semaphore, key_);
    ASSERT_TRUE(lease.has_value()) << "permit " << i;
    if (!held.empty()) {
      EXPECT_GT(lease->fence(), held.back().fence());
    }
    held.push_back(std::move(*lease));
  }
  EXPECT_FALSE(client->try_acquire(semaphore, key_).has_value()) << "a fourth permit at once";
  EXPECT_FALSE(another_thread_gets(*client, semaphore, key_));

  Holder fourth(*client, semaphore, key_);
  ASSERT_TRUE(waiting_count_reaches(*client, 1));
  EXPECT_FALSE(fourth.granted_within(0ms));
  held.front().release();
  ASSERT_TRUE(fourth.granted_within(5s)) << "a released permit went to nobody";
  EXPECT_GT(fourth.fence(), held.back().fence());
  EXPECT_FALSE(client->try_acquire(semaphore, key_).has_value());
}

TEST_F(MemoryKinds, APermitThatIsNotRenewedComesBackWhenItsTtlRunsOut) {
  auto client = connect();
  const auto short_lived = spec(type_, 300ms, permits(3), renew(false));
  const auto start = std::chrono::steady_clock::now();
  std::vector<Lease> held;
  for (int i = 0; i < 3; ++i) held.push_back(client->acquire(short_lived, key_));
  EXPECT_FALSE(client->try_acquire(short_lived, key_).has_value());

  Lease fourth = client->acquire(spec(type_, 30s, permits(3), wait(10s)), key_);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms)
      << "a permit came back before its holder's ttl ran out";
  EXPECT_GT(fourth.fence(), held.back().fence());
}

TEST_F(MemoryKinds, OnePermitExcludesLikeALockButIsNotReentered) {
  auto client = connect();
  const auto one = spec(type_, 30s, permits(1), wait(20s));
  Lease held = client->acquire(one, key_);
  EXPECT_FALSE(another_thread_gets(*client, one, key_));
  EXPECT_FALSE(client->try_acquire(one, key_).has_value())
      << "the holder's thread took a second permit of one";
  held.release();
  EXPECT_TRUE(another_thread_gets(*client, one, key_));
}

// hold_at_least: a released hold stays taken, by nobody, until then, whatever its kind.
TEST_F(MemoryKinds, EveryKindKeepsAHoldReleasedBeforeHoldAtLeast) {
  struct Case {
    const char* kind;
    LockSpec held;
    LockSpec contender;  // excluded by the kept hold
  };
  const std::vector<Case> cases = {
      {"read", spec(type_, 30s, distlock::read, hold_at_least(400ms)), write_},
      {"write", spec(type_, 30s, distlock::write, hold_at_least(400ms)), read_},
      {"permits", spec(type_, 30s, permits(1), hold_at_least(400ms)), spec(type_, 30s, permits(1))},
      {"fair", spec(type_, 30s, distlock::fair, hold_at_least(400ms)),
       spec(type_, 30s, distlock::fair)},
  };
  auto client = connect();
  for (const Case& c : cases) {
    const std::string key = std::string("kept-") + c.kind;
    Lease lease = client->acquire(c.held, key);
    lease.release();
    EXPECT_FALSE(another_thread_gets(*client, c.contender, key)) << c.kind;
    EXPECT_TRUE(eventually([&] { return another_thread_gets(*client, c.contender, key); }, 5s))
        << c.kind << ": the kept hold never expired";
  }
}

}  // namespace
}  // namespace distlock::testing
