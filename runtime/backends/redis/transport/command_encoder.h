// SPDX-License-Identifier: Apache-2.0
// Commands in the Redis protocol (RESP: an array of bulk strings), written into a buffer that
// keeps its capacity from one command to the next. hiredis's own formatter prints each
// argument through a printf-like routine into freshly allocated strings; the lock scripts'
// dozen arguments made that half of the client's CPU per call (design.md, "Client CPU").
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace distlock::detail::redis {

class CommandEncoder {
 public:
  // The command whose arguments are the parts' arguments, in order. The view is valid until
  // the next call.
  std::string_view encode(std::initializer_list<std::span<const std::string_view>> parts);

 private:
  std::string buffer_;
};

}  // namespace distlock::detail::redis
