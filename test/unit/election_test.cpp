// SPDX-License-Identifier: Apache-2.0
// election(), the reserved lock type of elections, and a Leadership's accessors and stop token
// on memory:// (the behaviour on every store: test/integration/election_behaviour_test.cpp).
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

namespace distlock {
namespace {

using namespace std::chrono_literals;

constexpr auto kScheduler = election("scheduler", 10s);
static_assert(kScheduler.name == "scheduler");
static_assert(kScheduler.ttl == 10s);
static_assert(kScheduler.wait == kWaitForever);
static_assert(kScheduler.stop_when == StopWhen::doubtful);
static_assert(election("scheduler", 10s, wait(2s)).wait == 2s);
static_assert(election("scheduler", 10s, try_only).wait == Millis::zero());
static_assert(election("scheduler", 10s, stop_when_invalid).stop_when == StopWhen::invalid);

// Keeps a value out of constant evaluation.
template <class T>
T opaque(T value) {
  volatile bool keep = true;
  return keep ? value : T{};
}

TEST(Election, AnElectionBuiltAtRunTimeIsCheckedThen) {
  EXPECT_THROW((void)election(std::string_view(opaque(std::string())), 1s), ConfigError);
  EXPECT_THROW((void)election("scheduler", opaque(0ms)), ConfigError);
  EXPECT_THROW((void)election("scheduler", 1s, wait(opaque(-1ms))), ConfigError);
  EXPECT_THROW((void)election(std::string_view(opaque(std::string(129, 'x'))), 1s), ConfigError);
}

TEST(Election, TheElectionsLockTypeIsRefusedForLocks) {
  try {
    (void)spec(std::string_view(opaque(std::string(kElectionLockType))), 1s);
    FAIL() << "spec() took the reserved type";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("reserved"), std::string::npos) << error.what();
  }
  // A spec put together field by field meets the client's own check.
  auto client = Client::connect("memory://election-reserved");
  LockSpec by_hand;
  by_hand.type = LockType(kElectionLockType);
  by_hand.ttl = 1s;
  try {
    (void)client->acquire(by_hand, "scheduler");
    FAIL() << "acquire() took the reserved type";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("reserved"), std::string::npos) << error.what();
  }
}

TEST(Election, AFieldByFieldElectionIsCheckedByTheClient) {
  auto client = Client::connect("memory://election-by-hand");
  ElectionSpec nameless;
  nameless.ttl = 1s;
  EXPECT_THROW((void)client->campaign(nameless), ConfigError);
  ElectionSpec no_ttl;
  no_ttl.name = LockType("scheduler");
  EXPECT_THROW((void)client->campaign(no_ttl), ConfigError);
}

TEST(Election, ALeadershipNamesItsElectionAndLock) {
  auto client = Client::connect("memory://election-names");
  Leadership leadership = client->campaign(kScheduler);
  EXPECT_EQ(leadership.election(), "scheduler");
  EXPECT_EQ(leadership.lease().name(), "elections:scheduler");
  EXPECT_EQ(leadership.epoch(), leadership.lease().fence());
  EXPECT_TRUE(leadership.valid());
  EXPECT_FALSE(leadership.stop_requested());
  EXPECT_TRUE(leadership.stop_token().stop_possible());
}

TEST(Election, ACampaignOfTheLeadersOwnThreadDoesNotReenter) {
  auto client = Client::connect("memory://election-no-reentry");
  Leadership leadership = client->campaign(kScheduler);
  EXPECT_FALSE(client->try_campaign(kScheduler).has_value());
  EXPECT_THROW((void)client->campaign(election("scheduler", 10s, wait(20ms))), LockTimeout);
}

TEST(Election, ResigningRequestsTheStopAndLetsTheNextCampaignerLead) {
  auto client = Client::connect("memory://election-resign");
  Leadership first = client->campaign(kScheduler);
  const StopToken token = first.stop_token();
  first.resign();
  EXPECT_FALSE(first.valid());
  EXPECT_TRUE(first.stop_requested());
  EXPECT_TRUE(token.stop_requested());
  first.resign();  // a second call does nothing

  std::optional<Leadership> second = client->try_campaign(kScheduler);
  ASSERT_TRUE(second.has_value());
  EXPECT_GT(second->epoch(), first.epoch());
}

TEST(Election, AMovedFromOrEmptyLeadershipHoldsNothingAndAskedSaysStop) {
  auto client = Client::connect("memory://election-moved");
  Leadership leadership = client->campaign(kScheduler);
  Leadership moved = std::move(leadership);
  EXPECT_TRUE(moved.valid());
  // NOLINTBEGIN(bugprone-use-after-move,clang-analyzer-cplusplus.Move): what a moved-from one does
  EXPECT_FALSE(leadership.valid());
  EXPECT_TRUE(leadership.stop_requested());
  EXPECT_FALSE(leadership.stop_token().stop_possible());
  EXPECT_THROW((void)leadership.epoch(), std::logic_error);
  EXPECT_THROW((void)leadership.election(), std::logic_error);
  leadership.resign();
  // NOLINTEND(bugprone-use-after-move,clang-analyzer-cplusplus.Move)

  const StopToken never;
  EXPECT_FALSE(never.stop_requested());
  EXPECT_FALSE(never.stop_possible());
  EXPECT_TRUE(Leadership().stop_requested());
}

TEST(Election, DroppingTheLeadershipResigns) {
  auto client = Client::connect("memory://election-drop");
  std::uint64_t first_epoch = 0;
  {
    Leadership leadership = client->campaign(kScheduler);
    first_epoch = leadership.epoch();
  }
  std::optional<Leadership> next = client->try_campaign(kScheduler);
  ASSERT_TRUE(next.has_value());
  EXPECT_GT(next->epoch(), first_epoch);
}

}  // namespace
}  // namespace distlock
