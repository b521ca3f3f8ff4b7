// SPDX-License-Identifier: Apache-2.0
// Waiting for a non-blocking socket to be ready, by a deadline, and optionally for another
// descriptor that stops the wait (a thread told to stop).
#pragma once

#include "util/steady_clock.h"

namespace distlock::detail::redis {

enum class Waited { ready, timed_out, stopped };

// Waits until `fd` has one of `events` (POLLIN, POLLOUT), `stop_fd` (if not -1) becomes
// readable, or `deadline` passes. An error or hang-up on `fd` counts as ready: the call that
// follows finds out which.
Waited wait_for(int fd, short events, SteadyClock::time_point deadline, int stop_fd = -1);

}  // namespace distlock::detail::redis
