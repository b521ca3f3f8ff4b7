// SPDX-License-Identifier: Apache-2.0
// Where the Redis benchmarks' server runs, and what it costs. The server gets a CPU of its own,
// as it has in a deployment, and the benchmark process, its threads and the programs it starts
// (the peers, redis-benchmark) share the others. On a 2-core machine a server that shares its
// cores with 8 client threads measures where the kernel puts them more than the lock
// (docs/performance.md, "The server on a CPU of its own").
#pragma once

#include <string>

namespace distlock::bench {

class ServerCpu {
 public:
  // Call first in main, before any thread starts: keeps this process off CPU 0, unless
  // `share` (--shared-cores) or the machine has a single CPU.
  explicit ServerCpu(bool share);

  // Puts every thread of the server process `pid` on CPU 0 (when split).
  void place_server(int pid) const;
  bool split() const { return split_; }
  // "server on CPU 0, clients on CPUs 1-3", or that they share all of them.
  std::string describe() const;

 private:
  bool split_ = false;
  unsigned cpus_ = 1;
};

// CPU seconds another process has used (user and system, its ended threads included), from
// /proc/<pid>/stat.
double process_cpu_seconds(int pid);

}  // namespace distlock::bench
