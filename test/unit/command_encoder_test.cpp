// SPDX-License-Identifier: Apache-2.0
// Commands in the Redis protocol: what the Redis backend sends for every call.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "backends/redis/transport/command_encoder.h"

namespace distlock::detail::redis {
namespace {

using namespace std::string_view_literals;

TEST(CommandEncoder, WritesAnArrayOfBulkStrings) {
  CommandEncoder encoder;
  const std::string_view args[] = {"SET", "key", "value"};
  EXPECT_EQ(encoder.encode({args}), "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n");
}

TEST(CommandEncoder, JoinsThePartsInOrder) {
  CommandEncoder encoder;
  const std::string_view head[] = {"EVALSHA", "abc", "1"};
  const std::string_view keys[] = {"k"};
  const std::string_view none[1] = {};
  const std::string_view args[] = {"a", "bb"};
  EXPECT_EQ(encoder.encode({head, keys, std::span(none, 0), args}),
            "*6\r\n$7\r\nEVALSHA\r\n$3\r\nabc\r\n$1\r\n1\r\n$1\r\nk\r\n$1\r\na\r\n$2\r\nbb\r\n");
}

// Lengths, not delimiters, frame an argument: empty ones, CR LF and NUL bytes inside one, and
// one longer than any earlier command all come out whole.
TEST(CommandEncoder, FramesAnyBytes) {
  CommandEncoder encoder;
  const std::string_view short_args[] = {"", "a\r\nb", "\0x"sv};
  EXPECT_EQ(encoder.encode({short_args}), "*3\r\n$0\r\n\r\n$4\r\na\r\nb\r\n$2\r\n\0x\r\n"sv);
  const std::string long_arg(100000, 'z');
  const std::string_view long_args[] = {long_arg};
  EXPECT_EQ(encoder.encode({long_args}), "*1\r\n$100000\r\n" + long_arg + "\r\n");
  const std::string_view after[] = {"PING"};
  EXPECT_EQ(encoder.encode({after}), "*1\r\n$4\r\nPING\r\n");
}

}  // namespace
}  // namespace distlock::detail::redis
