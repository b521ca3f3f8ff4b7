// SPDX-License-Identifier: Apache-2.0
// A worker of the checker: loops until its run time is up, each round acquiring the one
// lock, reading the fenced store with the lease's fence, pausing a random time, writing the
// value + 1 through distlock::checked, and releasing. It logs every grant, store operation,
// loss and release to its event log (events.h).
//
// A worker process can be the fault's victim. The coordinator arms it with SIGUSR1; the
// next time it holds the lock and has read the store, it acts out its role and tells the
// coordinator on stdout:
//   kill       "holding <fence>", then works on (a long pause) until it is SIGKILLed
//   stop       "stopping <fence>", then stops itself with SIGSTOP (the coordinator resumes
//              it with SIGCONT after more than a ttl); after resuming, it writes through
//              checked and, refused, sends the same write again bypassing the library (a
//              "probe") to show that fencing rejects it too
//   partition  "holding <fence>", then works for twice its ttl (the coordinator stalls its
//              connection meanwhile), then writes through checked and probes as `stop` does
//   hold       "holding <fence>", then works for 1.5 times its ttl, so that renewals must
//              carry it (the coordinator restarts the server or kills its leader meanwhile),
//              then writes through checked and probes as `stop` does
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "events.h"

namespace distlock::reliability {

enum class VictimRole { none, kill, stop, partition, hold };

VictimRole victim_role_from_name(const std::string& name);
std::string victim_role_name(VictimRole role);

// The kind of lock the workers take: each must exclude like the exclusive lock, so that the
// store's checks hold (a semaphore of one permit; the write side of a read-write lock).
enum class LockKindChoice { exclusive, fair, write, one_permit };

LockKindChoice lock_kind_from_name(const std::string& name);
std::string lock_kind_name(LockKindChoice kind);

struct WorkerSettings {
  int first_id = 0;  // worker ids first_id .. first_id + threads - 1
  int threads = 1;   // workers in this process (one Client each, or one for all)
  bool shared_client = false;
  bool async_acquire = false;  // by Client::acquire_async, each worker awaiting its handler
  std::string url;             // lock service
  std::string lock_type = "checker";
  std::string lock_key = "shared";
  LockKindChoice kind = LockKindChoice::exclusive;
  std::filesystem::path store;
  std::filesystem::path log_directory;  // worker-<id>.log in here
  Millis ttl{1000};
  Millis pause{20};            // each round pauses 0..pause between read and write
  int long_pause_percent = 3;  // ... or, this often, ttl/2 .. 3*ttl/2 (renewal must carry it)
  Millis think{20};            // and 0..think after releasing, before asking again
  Millis run_time{8000};       // at most; SIGUSR2 ends the run after the current round
  Millis wait{10000};          // acquire's wait(...)
  VictimRole role = VictimRole::none;  // of worker 0
  // Negative controls (RunConfig::Breaks): leases without renewal; writes straight to the
  // store, without checked(); a loss heard this much later than on_lost reports it; in half
  // the rounds, an update under the lease another thread of this process holds, without a
  // lock of its own; each lease logged as valid this much longer than valid_until() says.
  bool renew = true;
  bool use_checked = true;
  Millis on_lost_delay{0};
  bool borrow_leases = false;
  Millis validity_overstatement{0};
};

// The command line of a worker process ("worker --url ..."), and back.
std::vector<std::string> worker_arguments(const WorkerSettings& settings);
WorkerSettings parse_worker_arguments(const std::vector<std::string>& args);

// Runs the workers of this process until SIGUSR2 (or the run time is up); prints "ready"
// once every Client is connected and "done <rounds>" at the end. Returns the process's exit code:
// 0, or 1 when a worker failed for a reason that is not a fault's doing.
int run_worker_process(const WorkerSettings& settings);

std::filesystem::path worker_log_path(const std::filesystem::path& directory, int id);

}  // namespace distlock::reliability
