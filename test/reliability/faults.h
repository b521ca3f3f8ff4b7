// SPDX-License-Identifier: Apache-2.0
// The faults the coordinator injects mid-run, one small class each:
//   none            nothing: the baseline
//   kill-holder     SIGKILL worker 0 while it holds the lock (never restarted)
//   stop-holder     SIGSTOP worker 0 while it holds the lock, for longer than the lease
//                   could last, then SIGCONT
//   restart-server  crash the (single) server and start it again on the same port
//   kill-leader     SIGKILL the leader of a ZooKeeper ensemble, the master of a Redis
//                   behind Sentinel or of a Redis Cluster's lock slot (returning once a
//                   replica is promoted), or one of three Redlock masters
//   partition       stall worker 0's connections to every server (in-process TCP proxies,
//                   one per server, stop forwarding without closing anything) while it
//                   holds the lock, then let them flow
//   clock-jump      move the wall clock of workers 0 (+2 h) and 1 (-2 h) through
//                   libfaketime (monotonic time untouched)
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "events.h"
#include "servers.h"
#include "worker.h"

namespace distlock::testing {
class Subprocess;
}

namespace distlock::reliability {

// What happened, for the report (times in mono_ns()).
struct FaultRecord {
  FaultRecord() = default;
  explicit FaultRecord(std::string fault) : name(std::move(fault)) {}

  std::string name;
  bool applied = false;
  std::int64_t start_ns = 0;  // kill sent / process seen stopped / server killed / stall / jump
  std::int64_t end_ns = 0;    // the fault was over: SIGCONT, server serving, traffic flowing
  int victim = -1;            // the worker it hit, if one
  std::uint64_t victim_fence = 0;  // the fence the victim held when it was hit
  std::string detail;
};

struct FaultSetup {
  LockService& service;
  std::filesystem::path directory;
  int processes = 0;  // worker processes (one for thread workers)
  Millis ttl{0};
};

struct FaultContext {
  LockService& service;
  // The worker this injection hits (worker `victim_id`'s process), for faults with a victim.
  testing::Subprocess* victim = nullptr;
  int victim_id = -1;
  // 0 for the first injection of the run, 1 for the second, ...
  int injection = 0;
  Millis ttl{0};
  // How long a fault that stops or stalls a holder lasts: longer than the service could keep
  // the lock for a silent client.
  Millis hold_off{0};
  // Limit for waiting on the victim's announcements.
  Millis patience{0};
  // kill-holder: from the fault's moment to the kill (0, but for --break recovery). The
  // victim hangs meanwhile with its renewals going on: a holder whose watchdog outlives it.
  Millis kill_delay{0};
};

class Fault {
 public:
  virtual ~Fault() = default;
  virtual std::string name() const = 0;
  // Whether the fault means anything on this backend (in-process memory cannot lose one
  // holder's process or network; only ensembles have a leader).
  virtual bool applies_to(const LockService& service) const = 0;
  virtual VictimRole victim_role() const { return VictimRole::none; }
  // The worker the n-th injection hits (worker 0, unless each injection needs a new one).
  virtual int victim_for(int injection) const {
    (void)injection;
    return 0;
  }

  // Before the workers start: what they need (a proxy, clock files).
  virtual void prepare(const FaultSetup&) {}
  // How worker `id` reaches the service.
  virtual std::string worker_url(int id, const LockService& service) const;
  // What runs the worker program (e.g. env with LD_PRELOAD=libfaketime): prefix of argv.
  virtual std::vector<std::string> launcher(int id) const;

  // Mid-run: injects the fault (again, for a later injection) and returns once it is over.
  virtual FaultRecord apply(FaultContext& context) = 0;
};

std::unique_ptr<Fault> make_fault(const std::string& name);
std::vector<std::string> fault_names();

// libfaketime's multi-threaded library: $DISTLOCK_LIBFAKETIME, the path found when the
// checker was configured, or Debian's places. Empty when missing.
std::filesystem::path libfaketime_path();

}  // namespace distlock::reliability
