// SPDX-License-Identifier: Apache-2.0
// The outage policy every backend shares (core/ride_through.h): whether an operation tries
// again after a transient failure, when, and until when.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/log.h>

#include "core/ride_through.h"
#include "util/steady_clock.h"

using namespace std::chrono_literals;
using distlock::LogLevel;
using distlock::detail::RideThrough;
using distlock::detail::SteadyClock;

namespace {

constexpr auto kNoDeadline = SteadyClock::time_point::max();

// The warnings logged while it lives.
class CapturedWarnings {
 public:
  CapturedWarnings() {
    distlock::set_logger([this](LogLevel level, std::string_view message) {
      if (level == LogLevel::warning) lines_.emplace_back(message);
    });
  }
  ~CapturedWarnings() { distlock::set_logger({}); }
  CapturedWarnings(const CapturedWarnings&) = delete;
  CapturedWarnings& operator=(const CapturedWarnings&) = delete;
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  std::vector<std::string> lines_;
};

TEST(RideThrough, AZeroLimitTurnsItOff) {
  const CapturedWarnings warnings;
  RideThrough outage(0ms);
  EXPECT_FALSE(outage.next_try(SteadyClock::now() + 10s, "down").has_value());
  EXPECT_FALSE(outage.next_try(kNoDeadline, "down").has_value());
  EXPECT_TRUE(warnings.lines().empty());
}

TEST(RideThrough, ATryWhoseDeadlineHasComeIsNotMadeAgain) {
  RideThrough outage(10s);
  EXPECT_FALSE(outage.next_try(SteadyClock::now(), "down").has_value());
}

// Each pause is drawn from the upper half of a step that doubles from 50 ms to 1 s.
TEST(RideThrough, PausesDoubleFrom50MsTo1SDrawnFromTheUpperHalf) {
  const CapturedWarnings warnings;
  RideThrough outage(1ms);  // a deadline of its own: the limit does not bound it
  const auto deadline = SteadyClock::now() + 1h;
  for (const auto step : {50ms, 100ms, 200ms, 400ms, 800ms, 1000ms, 1000ms}) {
    const auto before = SteadyClock::now();
    const auto at = outage.next_try(deadline, "down");
    const auto after = SteadyClock::now();
    ASSERT_TRUE(at.has_value()) << "step " << step.count() << " ms";
    EXPECT_GE(*at - before, step / 2) << "step " << step.count() << " ms";
    EXPECT_LE(*at - after, step) << "step " << step.count() << " ms";
  }
}

TEST(RideThrough, AnOperationWithADeadlineRidesUntilItWhateverTheLimit) {
  RideThrough outage(1ms);
  const auto deadline = SteadyClock::now() + 30ms;
  EXPECT_EQ(outage.ends_at(deadline), deadline);
  const auto at = outage.next_try(deadline, "down");
  ASSERT_TRUE(at.has_value());
  EXPECT_LE(*at, deadline) << "the last try is made at the deadline, not after it";
}

TEST(RideThrough, AnOperationWithoutADeadlineRidesForTheLimitFromTheFirstFailure) {
  RideThrough outage(200ms);
  const auto before = SteadyClock::now();
  ASSERT_TRUE(outage.next_try(kNoDeadline, "down").has_value());
  const auto after = SteadyClock::now();
  EXPECT_GE(outage.ends_at(kNoDeadline), before + 200ms);
  EXPECT_LE(outage.ends_at(kNoDeadline), after + 200ms);
  // Later failures of the same spell do not move its end.
  const auto end = outage.ends_at(kNoDeadline);
  ASSERT_TRUE(outage.next_try(kNoDeadline, "down").has_value());
  EXPECT_EQ(outage.ends_at(kNoDeadline), end);
}

TEST(RideThrough, ASuccessBeginsANewSpellLoggedOnceAgain) {
  const CapturedWarnings warnings;
  RideThrough outage(10s);
  ASSERT_TRUE(outage.next_try(kNoDeadline, "lock 'a' on redis://h:1: refused").has_value());
  ASSERT_TRUE(outage.next_try(kNoDeadline, "lock 'a' on redis://h:1: refused").has_value());
  ASSERT_EQ(warnings.lines().size(), 1u);
  EXPECT_NE(warnings.lines()[0].find("lock 'a' on redis://h:1: refused"), std::string::npos)
      << warnings.lines()[0];
  EXPECT_NE(warnings.lines()[0].find("10000 ms (outage_limit)"), std::string::npos)
      << warnings.lines()[0];

  outage.succeeded();
  const auto at = outage.next_try(kNoDeadline, "lock 'a' on redis://h:1: reset");
  const auto after = SteadyClock::now();
  ASSERT_TRUE(at.has_value());
  // The first pause again: at most 50 ms after the moment next_try read the clock.
  EXPECT_LE(*at, after + 50ms) << "the pauses did not start over";
  EXPECT_EQ(warnings.lines().size(), 2u);
}

}  // namespace
