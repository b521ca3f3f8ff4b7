// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/command_encoder.h"

#include <charconv>
#include <cstring>

namespace distlock::detail::redis {
namespace {

// "*<count>\r\n" or "$<length>\r\n" at `out`; returns the end.
char* write_header(char* out, char kind, std::size_t number) {
  *out++ = kind;
  out = std::to_chars(out, out + 20, number).ptr;
  *out++ = '\r';
  *out++ = '\n';
  return out;
}

// The longest header: the kind, 20 digits, CRLF.
constexpr std::size_t kMaxHeader = 23;

}  // namespace

std::string_view CommandEncoder::encode(
    std::initializer_list<std::span<const std::string_view>> parts) {
  std::size_t count = 0;
  std::size_t most = kMaxHeader;
  for (const auto part : parts) {
    count += part.size();
    for (const auto arg : part) most += kMaxHeader + arg.size() + 2;
  }
  if (buffer_.size() < most) buffer_.resize(most);
  char* const begin = buffer_.data();
  char* out = write_header(begin, '*', count);
  for (const auto part : parts) {
    for (const auto arg : part) {
      out = write_header(out, '$', arg.size());
      if (!arg.empty()) std::memcpy(out, arg.data(), arg.size());
      out += arg.size();
      *out++ = '\r';
      *out++ = '\n';
    }
  }
  return {begin, static_cast<std::size_t>(out - begin)};
}

}  // namespace distlock::detail::redis
