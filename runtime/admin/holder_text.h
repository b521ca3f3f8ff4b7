// SPDX-License-Identifier: Apache-2.0
// The holder metadata the backends write, read back: "<host> <pid> <last>", where <last> is the
// acquisition time (a Redis lock's holder field) or the acquisition id (a ZooKeeper node's
// data). Host names have no spaces; the two last fields are split off from the right.
#pragma once

#include <string>
#include <string_view>

namespace distlock::detail {

struct HolderText {
  std::string host;
  long long pid = 0;
  std::string last;
};

// Text that is not of this shape (a Curator node's data: its IP address) is all host.
HolderText parse_holder_text(std::string_view text);

}  // namespace distlock::detail
