// SPDX-License-Identifier: Apache-2.0
// Durations as a lock spec takes them: text ("30s", "1m30s"), chrono durations (rounded up
// to whole milliseconds) and integers (milliseconds). Text literals are parsed during
// compilation; text given at run time throws ConfigError when malformed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include <distlock/duration.h>
#include <distlock/error.h>
#include <distlock/spec.h>

using namespace std::chrono_literals;
using distlock::DurationArg;
using distlock::Millis;
namespace detail = distlock::detail;

namespace {

// ---------------------------------------------------------------------------------------
// Evaluated during compilation: these lines do not compile unless the parse is constexpr.

static_assert(DurationArg("30s").value() == 30s);
static_assert(DurationArg("500ms").value() == 500ms);
static_assert(DurationArg("2m").value() == 2min);
static_assert(DurationArg("1h").value() == 1h);
static_assert(DurationArg("1m30s").value() == 90s);
static_assert(DurationArg("1h2m3s4ms").value() == 1h + 2min + 3s + 4ms);
static_assert(DurationArg("0s").value() == 0ms);
static_assert(detail::parse_duration("30s") == 30s);
static_assert(detail::parse_duration("250ms") == 250ms);
static_assert(detail::parse_duration("2562047788015h") ==
              std::chrono::hours(2562047788015));  // the largest
static_assert(DurationArg(500us).value() == 1ms);
static_assert(DurationArg(2s).value() == 2000ms);
static_assert(DurationArg(1500).value() == 1500ms);
static_assert(distlock::spec("order", "30s").ttl == std::chrono::seconds(30));
static_assert(distlock::spec("order", "1m30s").ttl == 90s);
static_assert(distlock::spec("order", 30s).ttl == 30000ms);
static_assert(distlock::spec("order", 250).ttl == 250ms);
static_assert(distlock::spec("order", "30s", distlock::wait("2s")).wait == 2s);

// Integers are milliseconds, but bool and char are not integers for this purpose.
static_assert(std::is_convertible_v<int, DurationArg>);
static_assert(std::is_convertible_v<std::uint64_t, DurationArg>);
static_assert(!std::is_constructible_v<DurationArg, bool>);
static_assert(!std::is_constructible_v<DurationArg, char>);
static_assert(!std::is_constructible_v<DurationArg, double>);

// Holds the text in a runtime std::string, so that only the string_view constructor (the
// run-time parse) can take it.
DurationArg at_run_time(const std::string& text) { return DurationArg(std::string_view(text)); }

// ---------------------------------------------------------------------------------------

TEST(Duration, TextLiterals) {
  EXPECT_EQ(DurationArg("30s").value(), Millis(30000));
  EXPECT_EQ(DurationArg("500ms").value(), Millis(500));
  EXPECT_EQ(DurationArg("2m").value(), Millis(120000));
  EXPECT_EQ(DurationArg("1h").value(), Millis(3600000));
  EXPECT_EQ(DurationArg("1m30s").value(), Millis(90000));
}

TEST(Duration, TextAtRunTime) {
  EXPECT_EQ(at_run_time("30s").value(), 30s);
  EXPECT_EQ(at_run_time("500ms").value(), 500ms);
  EXPECT_EQ(at_run_time("2m").value(), 2min);
  EXPECT_EQ(at_run_time("1h").value(), 1h);
  EXPECT_EQ(at_run_time("1m30s").value(), 90s);
  EXPECT_EQ(at_run_time("1h30m").value(), 90min);
  EXPECT_EQ(at_run_time("2s500ms").value(), 2500ms);
  EXPECT_EQ(at_run_time("0ms").value(), 0ms);
}

TEST(Duration, ChronoDurations) {
  EXPECT_EQ(DurationArg(30s).value(), 30000ms);
  EXPECT_EQ(DurationArg(2min).value(), 120000ms);
  EXPECT_EQ(DurationArg(1h).value(), 3600000ms);
  EXPECT_EQ(DurationArg(std::chrono::milliseconds(7)).value(), 7ms);
  EXPECT_EQ(DurationArg(std::chrono::minutes{1}).value(), 60s);
}

TEST(Duration, SubMillisecondDurationsRoundUp) {
  // A ttl is never shortened by the conversion: round up.
  EXPECT_EQ(DurationArg(500us).value(), 1ms);
  EXPECT_EQ(DurationArg(1us).value(), 1ms);
  EXPECT_EQ(DurationArg(1ns).value(), 1ms);
  EXPECT_EQ(DurationArg(1000us).value(), 1ms);
  EXPECT_EQ(DurationArg(1001us).value(), 2ms);
  EXPECT_EQ(DurationArg(1500us).value(), 2ms);
  EXPECT_EQ(DurationArg(0us).value(), 0ms);
  EXPECT_EQ(DurationArg(std::chrono::duration<double>(0.0015)).value(), 2ms);
}

TEST(Duration, IntegersAreMilliseconds) {
  EXPECT_EQ(DurationArg(250).value(), 250ms);
  EXPECT_EQ(DurationArg(250L).value(), 250ms);
  EXPECT_EQ(DurationArg(250u).value(), 250ms);
  EXPECT_EQ(DurationArg(std::int64_t{86400000}).value(), 24h);
  EXPECT_EQ(DurationArg(0).value(), 0ms);
}

TEST(Duration, LargestRepresentableTextParses) {
  EXPECT_EQ(at_run_time("9223372036854775807ms").value(), Millis::max());
  EXPECT_EQ(at_run_time("2562047788015h").value(), std::chrono::hours(2562047788015));
}

class BadDurationText : public ::testing::TestWithParam<std::string> {};

TEST_P(BadDurationText, ThrowsConfigErrorNamingTheText) {
  const std::string& text = GetParam();
  try {
    const DurationArg d = at_run_time(text);
    ADD_FAILURE() << "\"" << text << "\" parsed as " << d.value().count() << "ms";
  } catch (const distlock::ConfigError& e) {
    if (!text.empty()) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  }
}

TEST_P(BadDurationText, ParseDurationThrowsConfigError) {
  EXPECT_THROW((void)detail::parse_duration(GetParam()), distlock::ConfigError);
}

INSTANTIATE_TEST_SUITE_P(
    Duration, BadDurationText,
    ::testing::Values("", "30", "s", "30x", "-5s", "999999999999999999h", "ms", "30 s", " 30s",
                      "30s ", "1.5s", "5sec", "5S", "30sm", "1m30", "+5s", "0x10ms",
                      // a number too large for 64 bits before any unit is applied
                      "99999999999999999999ms",
                      // each term fits, the sum does not
                      "9223372036854775807ms1ms", "2562047788015h2562047788015h",
                      // three terms: a wrapping sum would come out positive again
                      "9223372036854775807ms9223372036854775807ms9223372036854775807ms",
                      // one hour more than Millis can hold
                      "2562047788016h"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      return "case" + std::to_string(info.index);
    });

TEST(Duration, BadTextThroughSpecIsAConfigError) {
  const std::string text = "30x";
  EXPECT_THROW((void)distlock::spec("order", std::string_view(text)), distlock::ConfigError);
  EXPECT_THROW((void)distlock::wait(std::string_view(text)), distlock::ConfigError);
}

}  // namespace
