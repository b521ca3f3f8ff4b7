// SPDX-License-Identifier: Apache-2.0
// What the Redis benchmarks share: the server's own speed as the reference (redis-benchmark
// with one connection running a one-line script), distlock's uncontended cycle, and medians.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <distlock/distlock.h>

#include "redis_server.h"

namespace distlock::bench {

// A script comparable to the smallest useful lock call: one key, one read.
inline constexpr const char* kReferenceScript = "return redis.call('EXISTS', KEYS[1])";

// Loads kReferenceScript on `server`; its SHA1 for evalsha_per_second.
std::string load_reference_script(const testing::RedisServer& server);

// redis-benchmark -c <connections> -n <requests> -q EVALSHA <sha> 1 <key>: requests per
// second. On a cluster node, `key` must be in one of its slots (else the replies are MOVED
// errors).
double evalsha_per_second(const testing::RedisServer& server, const std::string& sha, int requests,
                          const std::string& key = "somekey", int connections = 1);

// How a cycle gives the lock back: by the Lease leaving its scope (as RAII code and woven
// functions do; the release's reply is read by the next command), or by Lease::release(),
// which waits for the server's verdict.
enum class Ending { scope_exit, release_call };

// Uncontended acquire+release cycles per second on one client and one lock name (of the
// exclusive lock "bench", 30 s, unless `lock` says otherwise); throws when a fence does not
// increase.
double cycles_per_second(Client& client, int cycles, const std::string& key = "cycle",
                         Ending ending = Ending::scope_exit);
double cycles_per_second(Client& client, int cycles, const std::string& key, const LockSpec& lock,
                         Ending ending = Ending::scope_exit);

// The round trip of one EVALSHA of the reference script sent after `idle` without traffic, as
// a handoff's release is: median of `samples`, in µs. Waking an idle server and client costs
// more than the back-to-back calls of evalsha_per_second.
double idle_round_trip_us(const testing::RedisServer& server, const std::string& sha,
                          std::chrono::microseconds idle, int samples);

// A release told by pub/sub with nothing of distlock's: a PUBLISH sent after `idle` without
// traffic, to a subscriber thread blocked in read(), which hands it to a thread waiting on a
// condition variable (as distlock's subscriber thread hands a release to a waiter). Medians
// of `samples`, in µs from the PUBLISH's send: to the subscriber's read returning (the server's
// and the subscriber's wake-ups) and to the waiting thread running (one thread hop more).
struct NotificationLatency {
  double subscriber_us = 0;
  double relayed_us = 0;
};
NotificationLatency idle_notification_us(const testing::RedisServer& server,
                                         std::chrono::microseconds idle, int samples);

double median(std::vector<double> values);
// Each round's ratio in the order run, for a report: "0.91, 0.95, 0.97".
std::string listed_ratios(const std::vector<double>& ratios);

}  // namespace distlock::bench
