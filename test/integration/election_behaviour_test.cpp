// SPDX-License-Identifier: Apache-2.0
// Leader election on each backend and topology of the conformance list (test/conformance/
// topology.h), on the servers the suites of its process share: one leader at a time, each term's
// epoch above the last, the next campaigner elected when the leader resigns, and a term renewed
// while it is held without its stop being requested. Under faults: fault_rules_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include <distlock/distlock.h>

#include "integration_helpers.h"
#include "topology.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

class ElectionBehaviour : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    try {
      url_ = url_of(GetParam());
    } catch (const std::exception& e) {
      FAIL() << "cannot start the servers of " << ::testing::PrintToString(GetParam()) << ": "
             << e.what();
    }
    name_ = unique_name("election");
  }

  std::shared_ptr<Client> connect(Options options = {}) {
    return Client::connect(url_, std::move(options));
  }

  std::string url_;
  std::string name_;
};

TEST_P(ElectionBehaviour, OneLeaderAtATimeAndTheNextIsElectedWhenItResignsWithAHigherEpoch) {
  auto first_client = connect();
  auto second_client = connect();
  const auto scheduler = election(std::string_view(name_), 30s);
  Leadership first = first_client->campaign(scheduler);
  EXPECT_EQ(first.lease().name(), "elections:" + name_);
  EXPECT_FALSE(second_client->try_campaign(scheduler).has_value());

  auto second = std::async(std::launch::async, [&] { return second_client->campaign(scheduler); });
  EXPECT_EQ(second.wait_for(300ms), std::future_status::timeout) << "elected beside a leader";
  EXPECT_TRUE(first.valid());
  EXPECT_FALSE(first.stop_requested());

  first.resign();
  EXPECT_TRUE(first.stop_requested());
  Leadership next = second.get();
  EXPECT_GT(next.epoch(), first.epoch());
  EXPECT_TRUE(next.valid());
  EXPECT_FALSE(next.stop_requested());
}

// The doubt rule asks to stop when a renewal is late: renewals on time never do. Three renewals
// of a 2 s term carry it past two thirds of its first lease, where a term never renewed would be
// asked to stop.
TEST_P(ElectionBehaviour, ATermRenewedOnTimeIsNeverAskedToStop) {
  std::promise<void> renewed_thrice;
  int renewals = 0;
  Options options;
  options.on_event = [&](const distlock::Event& event) {
    if (event.kind == EventKind::renewed && ++renewals == 3) renewed_thrice.set_value();
  };
  auto client = connect(options);
  const auto granted_at = std::chrono::steady_clock::now();
  Leadership leadership = client->campaign(election(std::string_view(name_), 2s));
  const StopToken token = leadership.stop_token();
  ASSERT_EQ(renewed_thrice.get_future().wait_for(20s), std::future_status::ready);
  EXPECT_GT(std::chrono::steady_clock::now() - granted_at, 2s * 2 / 3);
  EXPECT_TRUE(leadership.valid());
  EXPECT_FALSE(token.stop_requested());
  EXPECT_FALSE(leadership.stop_requested());
  EXPECT_EQ(client->stats().renewal_failures, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, ElectionBehaviour,
                         ::testing::ValuesIn(built_backends([](Backend) { return true; })),
                         backend_name);

}  // namespace
}  // namespace distlock::testing
