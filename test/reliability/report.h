// SPDX-License-Identifier: Apache-2.0
// Merges the workers' event logs and the store's journal into the checker's figures, checks
// what must hold for the run's fault, and prints both.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "events.h"
#include "faults.h"
#include "fenced_store.h"

namespace distlock::reliability {

// What the coordinator knows about the run.
struct RunFacts {
  std::string backend;
  std::string kind;  // the lock the workers took: "exclusive", "fair", "write", "permits1"
  std::string fault;
  int workers = 0;
  bool threads = false;
  bool shared_client = false;
  bool async_acquire = false;
  Millis duration{0};
  std::int64_t ran_ns = 0;      // from the workers' start to the coordinator's stop
  std::int64_t started_ns = 0;  // CLOCK_MONOTONIC when the run began (fault times count from it)
  Millis ttl{0};
  // How long the service may keep a silent holder's lock (LockService::expiry_bound).
  Millis expiry_bound{0};
  // Slack allowed on timing bounds for a loaded machine.
  Millis slack{0};
  std::uint64_t min_operations = 0;
  std::vector<FaultRecord> records;  // one per injection
  struct Exit {
    int first_id = 0;
    std::string status;  // ExitStatus::describe()
    bool ok = false;     // as expected: exit code 0, or SIGKILL for the killed victim
  };
  std::vector<Exit> exits;
  // The coordinator's own CLOCK_REALTIME - CLOCK_MONOTONIC (never faked).
  std::int64_t wall_minus_mono_ns = 0;
  std::filesystem::path log_directory;
  std::filesystem::path store;
};

struct Check {
  std::string name;
  bool ok = false;
  std::string detail;
};

struct Figures {
  std::uint64_t acquisitions = 0;
  std::uint64_t rounds_completed = 0;  // acquisitions with an end record
  StoreAudit store;
  std::uint64_t interval_overlaps = 0;  // pairs of holders whose held intervals overlap
  std::int64_t longest_overlap_ns = 0;
  std::uint64_t holders_told = 0;  // acquisitions whose holder learned of a loss
  std::uint64_t lost_callbacks = 0;
  std::uint64_t refused_locally = 0;  // writes checked() refused before running them
  std::uint64_t undone = 0;           // writes checked() undid
  std::uint64_t release_lost = 0;     // release() threw LockLost
  std::uint64_t timeouts = 0;
  std::uint64_t unavailable = 0;
  std::uint64_t crashes = 0;
  std::uint64_t runtime_warnings = 0;
  std::int64_t longest_wait_ns = 0;  // asked -> granted (the lock is not fair)

  // One per injection of the fault.
  struct Injection {
    FaultRecord record;
    // The first grant to anyone but the victim once the fault began.
    std::optional<std::int64_t> recovery_ns;
    // Victim faults: that grant's time less the end of the victim's validity (must be >= 0),
    // and the same from the send time of the winning request (positive: proven before the
    // server could have granted it).
    std::optional<std::int64_t> validity_margin_ns;
    std::optional<std::int64_t> validity_margin_sent_ns;
    bool victim_held = false;  // the victim held the lock when the fault hit
    bool victim_told = false;
    // When the victim's on_lost callback ran, less the end of its validity (valid_until):
    // how late the push channel told it. None: the callback never ran (a release came first).
    std::optional<std::int64_t> on_lost_lag_ns;
    std::uint64_t post_fault_writes = 0;
    std::uint64_t post_fault_accepted = 0;
    std::uint64_t post_fault_reached_store = 0;  // ran against the store: not refused by checked()
    std::uint64_t probes = 0;
    std::uint64_t probes_rejected = 0;
    // restart-server: holders that still held when the server served again, how many
    // learned of the loss, and the longest time from then to a holder no longer believing.
    std::uint64_t spanning = 0;
    std::uint64_t spanning_told = 0;
    std::optional<std::int64_t> restart_window_ns;
    // clock-jump: per worker, its wall clock less the real one at its last grant before the
    // next injection (once this one surely took effect), and what was expected.
    struct WallShift {
      int worker = 0;
      std::optional<std::int64_t> seen;
      std::int64_t expected = 0;
    };
    std::vector<WallShift> wall_shifts;
  };
  std::vector<Injection> injections;
};

struct Report {
  RunFacts facts;
  Figures figures;
  std::vector<Check> checks;
  bool ok() const;
};

Report analyze(const RunFacts& facts);
void print_report(std::ostream& out, const Report& report);
// One row of the table in docs/reliability.md; the header when the file is new.
void append_markdown_row(const std::filesystem::path& path, const Report& report);

}  // namespace distlock::reliability
