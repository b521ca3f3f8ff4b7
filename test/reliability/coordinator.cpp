// SPDX-License-Identifier: Apache-2.0
#include "coordinator.h"

#include <signal.h>
#include <stdlib.h>

#include <iostream>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "faults.h"
#include "fenced_store.h"
#include "report.h"
#include "servers.h"
#include "subprocess.h"
#include "timeline.h"
#include "worker.h"

namespace distlock::reliability {
namespace {

using testing::Subprocess;

class RunDirectory {
 public:
  explicit RunDirectory(bool keep) : keep_(keep) {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string pattern = (base / "distlock-checker-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    path_ = pattern;
  }
  ~RunDirectory() {
    if (keep_) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }
  bool kept() const { return keep_; }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_;
};

struct WorkerProcess {
  int first_id = 0;
  std::unique_ptr<Subprocess> process;
};

}  // namespace

int run_checker(const RunConfig& config) {
  ::signal(SIGPIPE, SIG_IGN);
  if (config.workers < 2) throw std::invalid_argument("--workers must be at least 2");

  RunDirectory directory(config.keep);
  const auto logs = directory.path() / "logs";
  std::filesystem::create_directories(logs);
  const auto store = directory.path() / "store";
  FencedStore::create(store, /*fencing=*/!config.breaks.fencing);

  auto service =
      make_service({config.backend, directory.path() / "servers", config.session_timeout});
  auto fault = make_fault(config.fault);
  if (!fault->applies_to(*service))
    throw std::invalid_argument("fault " + config.fault + " does not apply to backend " +
                                config.backend);
  const bool threads = config.threads.value_or(service->in_process());
  if (service->in_process() && !threads)
    throw std::invalid_argument("memory:// is in-process: its workers must be threads (--threads)");
  if (threads && fault->victim_role() != VictimRole::none)
    throw std::invalid_argument("fault " + config.fault +
                                " hits one worker process: it needs --processes");
  if (config.shared_client && !threads)
    throw std::invalid_argument(
        "--shared-client shares one Client among worker threads: it needs "
        "--threads");
  if (config.breaks.exclusion && !threads)
    throw std::invalid_argument(
        "--break exclusion lends a lease to the other threads of its process: it needs "
        "--threads");
  if (config.breaks.recovery && config.fault != "kill-holder")
    throw std::invalid_argument("--break recovery delays kill-holder's kill: it needs that fault");

  fault->prepare({*service, directory.path(), threads ? 1 : config.workers, config.ttl});

  // A stopped or stalled holder stays so for longer than the service could keep its lock.
  const Millis expiry = service->expiry_bound(config.ttl);
  const Millis hold_off = expiry + config.ttl / 2 + Millis(500);
  const Millis fault_at = config.fault_at.value_or(config.duration * 35 / 100);
  const int injections = config.fault == "none" ? 0 : std::max(1, config.fault_count);
  if (config.fault == "kill-holder" && injections > config.workers - 2)
    throw std::invalid_argument(
        "kill-holder kills a new worker each time: --fault-count at most --workers - 2");
  const Millis every = config.fault_every.value_or(hold_off + expiry + Millis(2000));
  // Past the service's expiry and the slack on it: the lock cannot recover within the bound.
  const Millis kill_delay = config.breaks.recovery ? expiry + config.slack : Millis(0);
  // worker.cpp: a kill-holder victim works on for 4 ttl waiting for its kill.
  if (kill_delay >= config.ttl * 4)
    throw std::invalid_argument("--break recovery needs the expiry bound + --slack below 4 ttl");

  WorkerSettings base;
  base.store = store;
  base.log_directory = logs;
  base.kind = config.kind;
  base.ttl = config.ttl;
  base.pause = config.pause;
  base.think = config.think;
  // Without renewal every pause outlasts the lease: each write must then be refused.
  base.long_pause_percent = config.breaks.renewal ? 100 : config.long_pause_percent;
  base.renew = !config.breaks.renewal;
  base.use_checked = !config.breaks.checked;
  base.on_lost_delay = config.breaks.on_lost ? config.slack * 2 : Millis(0);
  base.borrow_leases = config.breaks.exclusion;
  base.validity_overstatement = config.breaks.validity ? config.ttl / 2 : Millis(0);
  // The coordinator ends the run (SIGUSR2); this only bounds a run whose coordinator died.
  base.run_time = config.duration + hold_off + Millis(120000);
  // Waits that outlast a silent holder's lock; a worker starved longer logs a timeout and
  // asks again.
  base.wait = std::max(Millis(3000), expiry * 3);

  std::vector<WorkerProcess> processes;
  const int process_count = threads ? 1 : config.workers;
  for (int p = 0; p < process_count; ++p) {
    WorkerSettings settings = base;
    settings.first_id = p;
    settings.threads = threads ? config.workers : 1;
    settings.shared_client = config.shared_client;
    settings.async_acquire = config.async_acquire;
    settings.url = fault->worker_url(p, *service);
    // Every process knows the role; only the one the coordinator arms acts it out.
    settings.role = fault->victim_role();
    std::vector<std::string> argv = fault->launcher(p);
    std::filesystem::path program = config.self;
    if (!argv.empty()) {
      program = argv.front();
      argv.erase(argv.begin());
      argv.push_back(config.self.string());
    }
    const auto args = worker_arguments(settings);
    argv.insert(argv.end(), args.begin(), args.end());
    processes.push_back({p, std::make_unique<Subprocess>(program, argv)});
  }
  for (auto& worker : processes) {
    const auto line = worker.process->read_line(std::chrono::seconds(60));
    if (!line || *line != "ready")
      throw std::runtime_error("worker " + std::to_string(worker.first_id) +
                               " did not start: " + (line ? "said '" + *line + "'" : "exited") +
                               " (logs in " + logs.string() + ")");
    // Victims keep talking to the fault; the others only need their pipes drained.
    bool victim = false;
    for (int i = 0; i < injections; ++i) victim = victim || fault->victim_for(i) == worker.first_id;
    if (!victim || fault->victim_role() == VictimRole::none) worker.process->discard_output();
  }

  // The fault's moments, then the fault itself (which may wait for its victim to get the
  // lock: the lock is not fair, so that can take a while).
  const auto started = Clock::now();
  std::vector<FaultRecord> records;
  auto last_end = started;
  for (int i = 0; i < injections; ++i) {
    std::this_thread::sleep_until(std::max(started + fault_at + every * i, last_end + every / 2));
    FaultContext context{*service};
    context.injection = i;
    context.victim_id = fault->victim_role() == VictimRole::none ? -1 : fault->victim_for(i);
    if (context.victim_id >= 0)
      context.victim = processes.at(static_cast<std::size_t>(context.victim_id)).process.get();
    context.ttl = config.ttl;
    context.hold_off = hold_off;
    context.patience = base.wait * 4 + Millis(10000);
    context.kill_delay = kill_delay;
    try {
      records.push_back(fault->apply(context));
    } catch (const std::exception& e) {
      // Reported as a failed check, with whatever the workers logged so far.
      FaultRecord failed(fault->name());
      failed.detail = std::string("not applied: ") + e.what();
      records.push_back(failed);
      break;
    }
    if (records.back().end_ns > 0)
      last_end = Clock::time_point(std::chrono::nanoseconds(records.back().end_ns));
  }
  for (auto& worker : processes) worker.process->discard_output();
  // Then the run goes on for its duration, and at least long enough after the last fault to
  // see the service recover and the victim act.
  std::this_thread::sleep_until(
      std::max(started + config.duration, last_end + expiry + Millis(1000)));
  for (auto& worker : processes) worker.process->kill(SIGUSR2);
  const auto stopped = Clock::now();

  RunFacts facts;
  facts.backend = config.backend;
  facts.kind = lock_kind_name(config.kind);
  facts.fault = config.fault;
  facts.workers = config.workers;
  facts.threads = threads;
  facts.shared_client = config.shared_client;
  facts.async_acquire = config.async_acquire;
  facts.duration = config.duration;
  facts.ran_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(stopped - started).count();
  facts.started_ns = to_ns(started);
  facts.ttl = config.ttl;
  facts.expiry_bound = expiry;
  facts.slack = config.slack;
  facts.min_operations = config.min_operations;
  facts.log_directory = logs;
  facts.wall_minus_mono_ns = wall_minus_mono_ns();
  facts.store = store;
  const Millis limit = base.wait + hold_off + Millis(60000);
  for (auto& worker : processes) {
    RunFacts::Exit exit;
    exit.first_id = worker.first_id;
    try {
      const auto status = worker.process->wait(limit);
      exit.status = status.describe();
      const bool killed_victim = config.fault == "kill-holder" && worker.first_id < injections;
      exit.ok = killed_victim ? (status.signaled && status.signal == SIGKILL) : status.success();
    } catch (const std::exception& e) {
      exit.status = e.what();
      exit.ok = false;
    }
    facts.exits.push_back(exit);
  }
  facts.records = records;

  const Report report = analyze(facts);
  print_report(std::cout, report);
  if (!config.markdown.empty()) append_markdown_row(config.markdown, report);
  if (!config.timeline.empty()) write_timeline(config.timeline, report);
  // A failed run's worker and server logs are what explain it; a negative control is meant to
  // fail.
  if (config.check && !report.ok() && !config.breaks.any()) directory.keep();
  if (directory.kept()) std::cout << "run directory kept: " << directory.path().string() << "\n";
  std::cout.flush();
  return (!config.check || report.ok()) ? 0 : 1;
}

}  // namespace distlock::reliability
