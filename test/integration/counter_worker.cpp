// SPDX-License-Identifier: Apache-2.0
// Child process of the multi-process integration tests.
//
//   counter_worker <url> <counter-file> <iterations> <threads>
//       Each thread, `iterations` times: takes the lock "counter:shared", increments the
//       counter file (read, random pause, write), releases. Prints "done <increments>".
//       Exit code 0: all went well; 2: a fence was not larger than the previous writer's;
//       1: an error (on stderr).
//
//   counter_worker --through-failover <url> <counter-file> <iterations> <threads>
//       The same across a failover of the server: a connect, an acquire or a release the
//       server cannot answer (BackendUnavailable) is tried again after 50 ms, for up to 30 s.
//
//   counter_worker --hold <url> <type> <key> <ttl-ms> [<permits> | fair]
//       Takes the lock (with <permits>: a permit of that semaphore; with fair: the fair lock,
//       waiting in its queue as long as it takes), prints "acquired <fence>" and then holds it
//       (the watchdog renewing it) until killed.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "counter_file.h"

namespace {

using namespace std::chrono_literals;

int usage() {
  std::cerr << "usage: counter_worker <url> <counter-file> <iterations> <threads>\n"
               "       counter_worker --through-failover <url> <counter-file> <iterations> "
               "<threads>\n"
               "       counter_worker --hold <url> <type> <key> <ttl-ms> [<permits> | fair]\n";
  return 64;
}

// `kind`: a number of permits, "fair", or empty (the exclusive lock).
int hold(const std::string& url, const std::string& type, const std::string& key, long ttl_ms,
         const std::string& kind) {
  auto client = distlock::Client::connect(url);
  const std::string_view lock_type(type);
  const auto lock_spec = kind == "fair" ? distlock::spec(lock_type, ttl_ms, distlock::fair)
                         : kind.empty() ? distlock::spec(lock_type, ttl_ms, distlock::wait(30s))
                                        : distlock::spec(lock_type, ttl_ms, distlock::wait(30s),
                                                         distlock::permits(std::stoll(kind)));
  distlock::Lease lease = client->acquire(lock_spec, key);
  std::cout << "acquired " << lease.fence() << std::endl;  // endl: flushed at once
  for (;;) ::pause();
}

// Runs `operation` until the server answers; BackendUnavailable for 30 s is given up on.
template <class Operation>
auto through_failover(Operation&& operation) {
  const auto give_up = std::chrono::steady_clock::now() + 30s;
  for (;;) {
    try {
      return operation();
    } catch (const distlock::BackendUnavailable&) {
      if (std::chrono::steady_clock::now() >= give_up) throw;
      std::this_thread::sleep_for(50ms);
    }
  }
}

int count(const std::string& url, const std::string& path, int iterations, int threads,
          bool failover) {
  // A worker slow to start (a sanitizer build) may connect during the failover.
  auto client = failover ? through_failover([&] { return distlock::Client::connect(url); })
                         : distlock::Client::connect(url);
  // Across a failover, leases must outlast it (a few seconds) to keep being renewed.
  const auto spec = distlock::spec("counter", failover ? 10s : 30s, distlock::wait(60s));
  std::atomic<int> increments{0};
  std::atomic<bool> fence_violation{false};
  std::atomic<bool> failed{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      try {
        for (int i = 0; i < iterations; ++i) {
          distlock::Lease lease =
              failover ? through_failover([&] { return client->acquire(spec, "shared"); })
                       : client->acquire(spec, "shared");
          if (!distlock::testing::increment_counter_file(path, lease.fence(), 1000us)) {
            fence_violation = true;
            std::cerr << "counter_worker: fence " << lease.fence()
                      << " not larger than the previous writer's\n";
          }
          lease.ensure_held();
          if (failover)
            through_failover([&] { lease.release(); });
          else
            lease.release();
          ++increments;
        }
      } catch (const std::exception& e) {
        std::cerr << "counter_worker: " << e.what() << "\n";
        failed = true;
      }
    });
  }
  for (auto& worker : workers) worker.join();
  std::cout << "done " << increments.load() << std::endl;
  if (failed) return 1;
  return fence_violation ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if ((argc == 6 || argc == 7) && std::string(argv[1]) == "--hold") {
      return hold(argv[2], argv[3], argv[4], std::stol(argv[5]), argc == 7 ? argv[6] : "");
    }
    if (argc == 5) return count(argv[1], argv[2], std::stoi(argv[3]), std::stoi(argv[4]), false);
    if (argc == 6 && std::string(argv[1]) == "--through-failover")
      return count(argv[2], argv[3], std::stoi(argv[4]), std::stoi(argv[5]), true);
    return usage();
  } catch (const std::exception& e) {
    std::cerr << "counter_worker: " << e.what() << "\n";
    return 1;
  }
}
