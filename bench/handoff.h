// SPDX-License-Identifier: Apache-2.0
// A handoff on any backend: a holder of one client releases (Lease::release(), awaited) while a
// thread of another client waits for the lock; the time from the release's call to the
// waiter's acquire returning. The waiter is counted as waiting (ClientStats::waiting) before
// the release, so it sleeps on whatever wakes it (a watch, a notification), as a waiter does.
#pragma once

#include <string>
#include <vector>

#include <distlock/distlock.h>

namespace distlock::bench {

// `samples` handoffs of the lock `lock` (a wait long enough for each), in µs, in the order
// measured.
std::vector<double> handoff_micros(Client& holder, Client& waiter, const LockSpec& lock,
                                   int samples);

// Prints the p50 and p90 of `samples` handoffs between two new clients of `url`, in µs and in
// `round_trip_us` (the store's back-to-back round trip).
void report_handoffs(const std::string& url, int samples, double round_trip_us);

}  // namespace distlock::bench
