// SPDX-License-Identifier: Apache-2.0
// The counters behind ClientStats, shared by the core and its backend.
#pragma once

#include <atomic>
#include <cstdint>

#include <distlock/client.h>

namespace distlock::detail {

struct StatsCounters {
  std::atomic<std::uint64_t> acquired{0};
  std::atomic<std::uint64_t> contended{0};
  std::atomic<std::uint64_t> woken_by_release{0};
  std::atomic<std::uint64_t> woken_by_timeout{0};
  std::atomic<std::uint64_t> timeouts{0};
  std::atomic<std::uint64_t> renewals{0};
  std::atomic<std::uint64_t> renewal_failures{0};
  std::atomic<std::uint64_t> lost{0};
  std::atomic<std::uint64_t> notifications{0};
  std::atomic<std::uint64_t> round_trips{0};
  std::atomic<std::uint64_t> waiting{0};
  std::atomic<std::uint64_t> release_failures{0};

  ClientStats snapshot() const;
};

// Counts a caller as waiting for as long as it lives.
class WaitingScope {
 public:
  explicit WaitingScope(StatsCounters& stats) : stats_(stats) { ++stats_.waiting; }
  ~WaitingScope() { --stats_.waiting; }
  WaitingScope(const WaitingScope&) = delete;
  WaitingScope& operator=(const WaitingScope&) = delete;

 private:
  StatsCounters& stats_;
};

}  // namespace distlock::detail
