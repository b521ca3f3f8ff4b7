// SPDX-License-Identifier: Apache-2.0
// The coordinator: starts the lock service and the workers, injects the fault, waits for
// the workers, and reports.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "events.h"
#include "worker.h"

namespace distlock::reliability {

struct RunConfig {
  std::string backend = "redis";
  std::string fault = "none";
  LockKindChoice kind = LockKindChoice::exclusive;
  int workers = 3;
  Millis duration{8000};
  Millis ttl{1000};
  Millis pause{20};
  int long_pause_percent = 3;
  Millis think{20};                   // 0..think outside the lock after each release
  std::optional<Millis> fault_at;     // default: 35% into the run
  int fault_count = 1;                // injections of the fault
  std::optional<Millis> fault_every;  // between injections (default: the fault's length + 2 s)
  std::optional<bool> threads;        // default: threads for memory, processes otherwise
  bool shared_client = false;         // the worker threads share one Client (--threads only)
  bool async_acquire = false;         // the workers acquire by Client::acquire_async
  Millis session_timeout{2000};       // ZooKeeper
  Millis slack{500};                  // allowance on timing bounds for a loaded machine
  std::uint64_t min_operations = 20;
  bool check = true;  // exit 1 when a check fails
  // Negative controls (--break): each turns one protection off, so that the check it is
  // there for must fail with its own line (test/reliability/CMakeLists.txt).
  struct Breaks {
    bool renewal = false;  // leases are not renewed, and every pause outlasts the ttl
    bool fencing = false;  // the store accepts every fence
    bool checked = false;  // workers write without checked()
    bool on_lost = false;  // a worker hears of a loss 2 x slack after on_lost reports it
    // In half its rounds a worker thread updates the store under the lease another thread of
    // its process holds, without a lock of its own (thread workers only).
    bool exclusion = false;
    bool validity = false;  // workers log each lease as valid half a ttl longer than it is
    // kill-holder's victim hangs, its renewals going on, for the expiry bound + slack after
    // the fault's moment before it is killed.
    bool recovery = false;
    bool any() const {
      return renewal || fencing || checked || on_lost || exclusion || validity || recovery;
    }
  } breaks;
  bool keep = false;               // keep the run's directory (logs, journal) even if it passes
  std::filesystem::path markdown;  // append a table row here
  std::filesystem::path timeline;  // write the run's timeline here (timeline.h)
  std::filesystem::path self;      // this executable, run again as the workers
};

// 0: every check held (or checks off); 1: a check failed; throws on setup errors.
int run_checker(const RunConfig& config);

}  // namespace distlock::reliability
