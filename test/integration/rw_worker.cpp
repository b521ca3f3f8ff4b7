// SPDX-License-Identifier: Apache-2.0
// Child process of the ZooKeeper multi-process tests (read-write locks, Curator interop, the
// ensemble): like counter_worker, with a lock mode, a lock name of the test's choosing, hold
// intervals written to a file, and optional riding out of server failures.
//
//   rw_worker --url URL --type T [--key K] --mode exclusive|read|write --iterations N
//             --counter FILE [--threads N] [--intervals FILE] [--pause-us N] [--go FILE] [--retry]
//   rw_worker --url URL --type T [--key K] --permits N --iterations N [--threads N]
//             [--intervals FILE] [--pause-us N] [--go FILE] [--retry]
//
// Each thread, N times: acquires, works on the counter file ("<count> <fence>"), releases.
//   exclusive, write: read, pause up to --pause-us, write count + 1 with the lease's fence;
//                     a fence not larger than the previous writer's is a violation.
//   read:             read, pause, read again; a changed count is a violation (a writer held
//                     the lock at the same time).
//   --permits N:      a permit of a semaphore of N: pause up to --pause-us (no counter, which
//                     up to N holders share; the intervals show how many held at once).
// With --intervals, each hold appends "<R|W|P> <start-ns> <end-ns> distlock-<pid>" (steady_clock,
// which is CLOCK_MONOTONIC, like Java's System.nanoTime()).
// --retry: an acquisition that fails with BackendUnavailable is tried again, and a lease
// found lost after its work (ensure_held, release) is counted, not fatal: for tests that kill
// servers. The work is counted as done either way (it was).
//
// --go FILE: the threads start only once FILE exists (as CuratorContender's --go), so that
// processes started one after another contend from the same moment.
// Prints "ready" once connected, and at the end "done <holds> unavailable <n> lost <n>".
// Exit code 0: all went well; 2: a violation (on stderr); 1: an error (on stderr).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "counter_file.h"

namespace {

using namespace std::chrono_literals;

struct Settings {
  std::string url;
  std::string type;
  std::optional<std::string> key;
  distlock::Mode mode = distlock::Mode::exclusive;
  long long permits = 0;  // a semaphore of that many permits instead of the lock
  int iterations = 0;
  int threads = 1;
  std::string counter;
  std::string intervals;
  std::string go;
  long pause_us = 1000;
  bool retry = false;
};

int usage() {
  std::cerr << "usage: rw_worker --url URL --type T [--key K] --mode exclusive|read|write "
               "--iterations N --counter FILE [--threads N] [--intervals FILE] [--pause-us N] "
               "[--go FILE] [--retry]\n"
               "       rw_worker --url URL --type T [--key K] --permits N --iterations N "
               "[--threads N] [--intervals FILE] [--pause-us N] [--go FILE] [--retry]\n";
  return 64;
}

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void append_line(const std::string& path, const std::string& line) {
  // One write(2) with O_APPEND: lines of several processes never interleave.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot write " + path);
}

// The file appears once, written by the test: polled, as CuratorContender polls it.
void wait_for_file(const std::string& path) {
  while (::access(path.c_str(), F_OK) != 0) std::this_thread::sleep_for(1ms);
}

int run(const Settings& settings) {
  auto client = distlock::Client::connect(settings.url);
  std::cout << "ready" << std::endl;
  if (!settings.go.empty()) wait_for_file(settings.go);
  const auto lock_spec = [&] {
    switch (settings.mode) {
      case distlock::Mode::read:
        return distlock::spec(std::string_view(settings.type), 30s, distlock::wait(120s),
                              distlock::read);
      case distlock::Mode::write:
        return distlock::spec(std::string_view(settings.type), 30s, distlock::wait(120s),
                              distlock::write);
      default:
        if (settings.permits > 0)
          return distlock::spec(std::string_view(settings.type), 30s, distlock::wait(120s),
                                distlock::permits(settings.permits));
        return distlock::spec(std::string_view(settings.type), 30s, distlock::wait(120s));
    }
  }();
  const distlock::Key key = settings.key ? distlock::Key(*settings.key) : distlock::Key();
  const bool reader = settings.mode == distlock::Mode::read;
  const bool permit = settings.permits > 0;
  const std::string who = " distlock-" + std::to_string(::getpid()) + "\n";

  std::atomic<int> holds{0};
  std::atomic<int> unavailable{0};
  std::atomic<int> lost{0};
  std::atomic<bool> violation{false};
  std::atomic<bool> failed{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < settings.threads; ++t) {
    workers.emplace_back([&] {
      thread_local std::mt19937 random{std::random_device{}()};
      try {
        for (int i = 0; i < settings.iterations; ++i) {
          std::optional<distlock::Lease> lease;
          while (!lease) {
            try {
              lease.emplace(client->acquire(lock_spec, key));
            } catch (const distlock::BackendUnavailable& e) {
              if (!settings.retry) throw;
              ++unavailable;
            }
          }
          const long long start = now_ns();
          if (permit) {
            std::this_thread::sleep_for(std::chrono::microseconds(
                std::uniform_int_distribution<long>(0, settings.pause_us)(random)));
          } else if (reader) {
            const auto before = distlock::testing::read_counter_file(settings.counter);
            std::this_thread::sleep_for(std::chrono::microseconds(
                std::uniform_int_distribution<long>(0, settings.pause_us)(random)));
            const auto after = distlock::testing::read_counter_file(settings.counter);
            if (after.count != before.count) {
              violation = true;
              std::cerr << "rw_worker: the counter changed from " << before.count << " to "
                        << after.count << " during a read hold\n";
            }
          } else if (!distlock::testing::increment_counter_file(
                         settings.counter, lease->fence(),
                         std::chrono::microseconds(settings.pause_us))) {
            violation = true;
            std::cerr << "rw_worker: fence " << lease->fence()
                      << " not larger than the previous writer's\n";
          }
          const long long end = now_ns();
          if (!settings.intervals.empty()) {
            const char* kind = permit ? "P " : reader ? "R " : "W ";
            append_line(settings.intervals,
                        kind + std::to_string(start) + " " + std::to_string(end) + who);
          }
          ++holds;
          try {
            lease->ensure_held();
            lease->release();
          } catch (const distlock::LockLost& e) {
            if (!settings.retry) throw;
            ++lost;
            std::cerr << "rw_worker: (riding out) " << e.what() << "\n";
          } catch (const distlock::BackendUnavailable& e) {
            if (!settings.retry) throw;
            ++unavailable;
            std::cerr << "rw_worker: (riding out) release: " << e.what() << "\n";
          }
        }
      } catch (const std::exception& e) {
        std::cerr << "rw_worker: " << e.what() << "\n";
        failed = true;
      }
    });
  }
  for (auto& worker : workers) worker.join();
  std::cout << "done " << holds.load() << " unavailable " << unavailable.load() << " lost "
            << lost.load() << std::endl;
  if (failed) return 1;
  return violation ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--retry") {
        settings.retry = true;
        continue;
      }
      if (i + 1 >= argc) return usage();
      const std::string value = argv[++i];
      if (arg == "--url")
        settings.url = value;
      else if (arg == "--type")
        settings.type = value;
      else if (arg == "--key")
        settings.key = value;
      else if (arg == "--mode") {
        if (value == "exclusive")
          settings.mode = distlock::Mode::exclusive;
        else if (value == "read")
          settings.mode = distlock::Mode::read;
        else if (value == "write")
          settings.mode = distlock::Mode::write;
        else
          return usage();
      } else if (arg == "--iterations")
        settings.iterations = std::stoi(value);
      else if (arg == "--permits")
        settings.permits = std::stoll(value);
      else if (arg == "--threads")
        settings.threads = std::stoi(value);
      else if (arg == "--counter")
        settings.counter = value;
      else if (arg == "--intervals")
        settings.intervals = value;
      else if (arg == "--pause-us")
        settings.pause_us = std::stol(value);
      else if (arg == "--go")
        settings.go = value;
      else
        return usage();
    }
    const bool permits_ok = settings.permits == 0 || settings.mode == distlock::Mode::exclusive;
    if (settings.url.empty() || settings.type.empty() || !permits_ok ||
        (settings.counter.empty() && settings.permits == 0) || settings.iterations < 1 ||
        settings.threads < 1) {
      return usage();
    }
    return run(settings);
  } catch (const std::exception& e) {
    std::cerr << "rw_worker: " << e.what() << "\n";
    return 1;
  }
}
