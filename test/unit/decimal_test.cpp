// SPDX-License-Identifier: Apache-2.0
// Decimal numbers in text (runtime/util/decimal.h): the fences, counts and times the servers
// return, and the ports and counts of URLs.
#include "util/decimal.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace distlock::detail {
namespace {

TEST(Decimal, ReadsTheWholeText) {
  EXPECT_EQ(parse_decimal<std::uint64_t>("1795734629578853"), 1795734629578853u);
  EXPECT_EQ(parse_decimal<unsigned>("0"), 0u);
  EXPECT_EQ(parse_decimal<long long>("-42"), -42);
}

TEST(Decimal, RefusesAnythingButDigits) {
  EXPECT_EQ(parse_decimal<unsigned>(""), std::nullopt);
  EXPECT_EQ(parse_decimal<unsigned>("12 "), std::nullopt);
  EXPECT_EQ(parse_decimal<unsigned>(" 12"), std::nullopt);
  EXPECT_EQ(parse_decimal<unsigned>("+12"), std::nullopt);
  EXPECT_EQ(parse_decimal<unsigned>("1e3"), std::nullopt);
  EXPECT_EQ(parse_decimal<unsigned>("-1"), std::nullopt);
  EXPECT_EQ(parse_decimal<unsigned>("0x10"), std::nullopt);
}

TEST(Decimal, RefusesWhatDoesNotFit) {
  EXPECT_EQ(parse_decimal<std::uint16_t>("65535"), 65535);
  EXPECT_EQ(parse_decimal<std::uint16_t>("65536"), std::nullopt);
  EXPECT_EQ(parse_decimal<std::uint64_t>("18446744073709551616"), std::nullopt);
}

TEST(Decimal, APortIsFrom1To65535) {
  EXPECT_EQ(parse_port("6379"), 6379);
  EXPECT_EQ(parse_port("1"), 1);
  EXPECT_EQ(parse_port("65535"), 65535);
  EXPECT_EQ(parse_port("0"), std::nullopt);
  EXPECT_EQ(parse_port("65536"), std::nullopt);
  EXPECT_EQ(parse_port(""), std::nullopt);
  EXPECT_EQ(parse_port("80x"), std::nullopt);
}

}  // namespace
}  // namespace distlock::detail
