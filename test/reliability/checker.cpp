// SPDX-License-Identifier: Apache-2.0
// distlock_checker: a fault-injection checker for mutual exclusion and fencing.
//
//   distlock_checker --backend redis --fault kill-holder [--workers 3] [--duration 8s] ...
//       runs the coordinator: starts a private lock service and N worker processes (this
//       program again, in worker mode), injects the fault mid-run, merges the workers' logs
//       and the fenced store's journal, prints the figures and checks, and exits 0 when
//       every check held, 1 when one failed, 2 on a usage or setup error (a missing
//       redis-server is one).
//   distlock_checker worker ...
//       one worker process (started by the coordinator).
//
// docs/reliability.md describes the checks, the faults and the figures.
#include <unistd.h>

#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "coordinator.h"
#include "faults.h"
#include "worker.h"

namespace {

using namespace distlock::reliability;

void usage(std::ostream& out) {
  out << "usage: distlock_checker --backend memory|redis|rediss|redis-sentinel|\n"
         "                                  redis-sentinel-async|redis-redlock|redis-cluster|\n"
         "                                  zookeeper|zookeeper-ensemble\n"
         "                        --fault "
         "none|kill-holder|stop-holder|restart-server|kill-leader|\n"
         "                                partition|clock-jump\n"
         "                        [--kind exclusive|fair|write|permits1]\n"
         "                        [--workers N] [--duration 8s] [--ttl 1s] [--pause 20ms]\n"
         "                        [--long-pause-percent 3] [--think 20ms] [--fault-at 3s]\n"
         "                        [--fault-count 1] [--fault-every 20s]\n"
         "                        [--threads [--shared-client]|--processes] [--async-acquire]\n"
         "                        [--session-timeout 2s] [--slack 500ms] [--min-operations 20]\n"
         "                        [--markdown FILE] [--timeline FILE] [--keep] [--no-check]\n"
         "                        [--break renewal|fencing|checked|on-lost|exclusion|\n"
         "                                 validity|recovery]...\n"
         "  --kind: the lock the workers take, each excluding like the exclusive lock (the\n"
         "          default): a fair lock, a read-write lock's write side, a semaphore of one\n"
         "          permit\n"
         "  --shared-client: the worker threads share one Client, so their lock commands share\n"
         "                   its one connection, as a service's threads do\n"
         "  --async-acquire: the workers acquire by Client::acquire_async, the wait driven by\n"
         "                   the client's own thread rather than the worker's\n"
         "  --timeline: also write each hold, the fault and the recovery to FILE, one\n"
         "              tab-separated line each, for scripts/run-bench.sh --plots\n"
         "  --break: a negative control, turning one protection off so that the check it is\n"
         "           there for must fail (and the checker exit 1), which shows that it can:\n"
         "    renewal  leases are not renewed and every pause outlasts the ttl: writes are\n"
         "             refused in a run without faults\n"
         "    fencing  the store accepts every fence: a stale write is accepted\n"
         "    checked  workers write without checked(): a victim's stale write reaches the\n"
         "             store (fencing still rejects it)\n"
         "    on-lost  workers hear of a loss 2 x --slack after on_lost reports it: the\n"
         "             partition fault's timing check fails\n"
         "    exclusion\n"
         "             in half its rounds, a worker thread updates the store under the lease\n"
         "             another thread of its process holds (--threads): updates are lost,\n"
         "             with no stale fence for the store to refuse\n"
         "    validity workers log each lease as valid half a ttl longer than it is: the\n"
         "             next grant comes before a victim's (reported) validity ended\n"
         "    recovery kill-holder's victim hangs, its renewals going on, for the expiry\n"
         "             bound + --slack before it is killed: the lock recovers too late\n";
}

RunConfig parse_run(const std::vector<std::string>& args) {
  RunConfig config;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(flag + " needs a value");
      return args[++i];
    };
    if (flag == "--backend")
      config.backend = value();
    else if (flag == "--fault")
      config.fault = value();
    else if (flag == "--kind")
      config.kind = lock_kind_from_name(value());
    else if (flag == "--workers")
      config.workers = std::stoi(value());
    else if (flag == "--duration")
      config.duration = parse_duration(value());
    else if (flag == "--ttl")
      config.ttl = parse_duration(value());
    else if (flag == "--pause")
      config.pause = parse_duration(value());
    else if (flag == "--long-pause-percent")
      config.long_pause_percent = std::stoi(value());
    else if (flag == "--think")
      config.think = parse_duration(value());
    else if (flag == "--fault-at")
      config.fault_at = parse_duration(value());
    else if (flag == "--fault-count")
      config.fault_count = std::stoi(value());
    else if (flag == "--fault-every")
      config.fault_every = parse_duration(value());
    else if (flag == "--threads")
      config.threads = true;
    else if (flag == "--processes")
      config.threads = false;
    else if (flag == "--shared-client")
      config.shared_client = true;
    else if (flag == "--async-acquire")
      config.async_acquire = true;
    else if (flag == "--session-timeout")
      config.session_timeout = parse_duration(value());
    else if (flag == "--slack")
      config.slack = parse_duration(value());
    else if (flag == "--min-operations")
      config.min_operations = std::stoull(value());
    else if (flag == "--markdown")
      config.markdown = value();
    else if (flag == "--timeline")
      config.timeline = value();
    else if (flag == "--keep")
      config.keep = true;
    else if (flag == "--no-check")
      config.check = false;
    else if (flag == "--break") {
      const std::string& what = value();
      if (what == "renewal")
        config.breaks.renewal = true;
      else if (what == "fencing")
        config.breaks.fencing = true;
      else if (what == "checked")
        config.breaks.checked = true;
      else if (what == "on-lost")
        config.breaks.on_lost = true;
      else if (what == "exclusion")
        config.breaks.exclusion = true;
      else if (what == "validity")
        config.breaks.validity = true;
      else if (what == "recovery")
        config.breaks.recovery = true;
      else
        throw std::invalid_argument(
            "--break takes renewal, fencing, checked, on-lost, exclusion, validity or "
            "recovery, not " +
            what);
    } else
      throw std::invalid_argument("unknown option " + flag);
  }
  return config;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args.front() == "worker") {
    try {
      return run_worker_process(parse_worker_arguments({args.begin() + 1, args.end()}));
    } catch (const std::exception& e) {
      std::cerr << "checker worker: " << e.what() << "\n";
      return 1;
    }
  }
  if (!args.empty() && (args.front() == "--help" || args.front() == "-h")) {
    usage(std::cout);
    return 0;
  }
  try {
    RunConfig config = parse_run(args);
    config.self = std::filesystem::read_symlink("/proc/self/exe");
    return run_checker(config);
  } catch (const std::invalid_argument& e) {
    std::cerr << "distlock_checker: " << e.what() << "\n";
    usage(std::cerr);
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "distlock_checker: " << e.what() << "\n";
    return 2;
  }
}
