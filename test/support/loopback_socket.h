// SPDX-License-Identifier: Apache-2.0
// A TCP connection to a port on 127.0.0.1, for tests and benchmarks that talk to a server or
// stand between one and its clients.
#pragma once

#include <cstdint>

namespace distlock::testing {

// A connected, blocking socket without Nagle's delay (TCP_NODELAY), closed on exec: its
// descriptor, which the caller closes, or -1 with errno set when the connection cannot be made.
int connect_loopback(std::uint16_t port);

}  // namespace distlock::testing
