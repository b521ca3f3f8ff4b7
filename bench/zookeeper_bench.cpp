// zookeeper_bench: distlock's ZooKeeper backend beside Apache Curator's InterProcessMutex
// (Debian's jars, bench/CuratorBench.java), against one private ZooKeeper in the same run.
//
//   uncontended  one client, one thread: acquire + release of one lock, as fast as it goes
//   contended    waiters + 1 threads, each with its own client (its own session), looping
//                acquire + release on one lock: while one holds, `waiters` wait, and every
//                acquisition is a handoff from the previous holder
//
//   zookeeper_bench [--seconds S] [--rounds N] [--waiters N] [--fsync] [--quick]
//
// Each figure is the median of --rounds rounds of S seconds (after a warm-up round). The
// server runs standalone with forceSync=no (no fsync per transaction; --fsync turns it on),
// so the figures show the clients, not the disk. distlock's own counters give its server
// round trips per acquisition and its watch notifications per handoff.
#include <distlock/distlock.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "subprocess.h"
#include "zookeeper_server.h"

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

struct Settings {
  double seconds = 3;
  double warmup_seconds = 1;
  int rounds = 3;
  int waiters = 8;
  bool fsync = false;
};

struct Result {
  double rate = 0;           // acquisitions per second, median
  double round_trips = 0;    // per acquisition (distlock only)
  double notifications = 0;  // per acquisition (distlock only)
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

distlock::ClientStats total(const std::vector<std::shared_ptr<distlock::Client>>& clients) {
  distlock::ClientStats sum;
  for (const auto& c : clients) {
    const auto s = c->stats();
    sum.acquired += s.acquired;
    sum.round_trips += s.round_trips;
    sum.notifications += s.notifications;
  }
  return sum;
}

// Acquisitions completed by all clients' threads within `seconds`.
std::uint64_t measure(const std::vector<std::shared_ptr<distlock::Client>>& clients,
                      const std::string& key, double seconds) {
  constexpr auto bench_lock = distlock::spec("bench", 30s);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(seconds));
  std::atomic<std::uint64_t> count{0};
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (const auto& client : clients) {
    threads.emplace_back([&, client] {
      try {
        while (Clock::now() < deadline) {
          distlock::Lease lease = client->acquire(bench_lock, key);
          const bool in_time = Clock::now() < deadline;
          lease.release();
          if (in_time) ++count;
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "zookeeper_bench: %s\n", e.what());
        failed = true;
      }
    });
  }
  for (auto& t : threads) t.join();
  if (failed) throw std::runtime_error("a distlock worker failed");
  return count.load();
}

Result run_distlock(const std::string& url, const std::string& key, int threads,
                    const Settings& settings) {
  std::vector<std::shared_ptr<distlock::Client>> clients;
  for (int i = 0; i < threads; ++i) clients.push_back(distlock::Client::connect(url));
  measure(clients, key, settings.warmup_seconds);
  const auto before = total(clients);
  std::vector<double> rates;
  std::uint64_t acquisitions = 0;
  for (int round = 0; round < settings.rounds; ++round) {
    const auto start = Clock::now();
    const std::uint64_t n = measure(clients, key, settings.seconds);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    acquisitions += n;
    rates.push_back(static_cast<double>(n) / elapsed);
  }
  const auto after = total(clients);
  Result result;
  result.rate = median(rates);
  // Over all acquisitions of the rounds, those that finished after a deadline included.
  const double acquired = static_cast<double>(after.acquired - before.acquired);
  result.round_trips = static_cast<double>(after.round_trips - before.round_trips) / acquired;
  result.notifications = static_cast<double>(after.notifications - before.notifications) / acquired;
  (void)acquisitions;
  return result;
}

double run_curator(const distlock::testing::ZooKeeperServer& server, const std::string& path,
                   const char* mode, const Settings& settings) {
  const auto java = distlock::testing::java_program();
  if (java.empty()) throw std::runtime_error("java not found: Curator cannot run");
  distlock::testing::Subprocess process(
      java, {"-Xmx512m", "-cp", DISTLOCK_CURATOR_BENCH_CLASSPATH, "CuratorBench", "--connect",
             server.connect_string(), "--path", path, "--mode", mode, "--seconds",
             std::to_string(settings.seconds), "--warmup-seconds",
             std::to_string(settings.warmup_seconds), "--rounds", std::to_string(settings.rounds),
             "--waiters", std::to_string(settings.waiters)});
  const std::string output = process.read_all(std::chrono::seconds(600));
  const auto status = process.wait(std::chrono::seconds(30));
  if (!status.success()) {
    throw std::runtime_error("CuratorBench failed (" + status.describe() + "): " + output);
  }
  const auto at = output.rfind("result ");
  if (at == std::string::npos)
    throw std::runtime_error("cannot read CuratorBench's output: " + output);
  return std::stod(output.substr(at + 7));
}

double parse_number(const char* flag, const char* text, double low, double high) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || value < low || value > high) {
    std::fprintf(stderr, "zookeeper_bench: bad value for %s: %s\n", flag, text);
    std::exit(2);
  }
  return value;
}

Settings parse_args(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "zookeeper_bench: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--seconds")
      settings.seconds = parse_number(argv[i], value(), 0.1, 3600);
    else if (arg == "--rounds")
      settings.rounds = static_cast<int>(parse_number(argv[i], value(), 1, 100));
    else if (arg == "--waiters")
      settings.waiters = static_cast<int>(parse_number(argv[i], value(), 1, 256));
    else if (arg == "--fsync")
      settings.fsync = true;
    else if (arg == "--quick") {
      settings.seconds = 1;
      settings.warmup_seconds = 0.5;
      settings.rounds = 1;
    } else {
      std::fprintf(stderr,
                   "usage: zookeeper_bench [--seconds S] [--rounds N] [--waiters N] [--fsync] "
                   "[--quick]\n");
      std::exit(2);
    }
  }
  return settings;
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse_args(argc, argv);
  try {
    distlock::testing::ZooKeeperConfig config;
    config.force_sync = settings.fsync;
    config.max_heap = "1g";
    distlock::testing::ZooKeeperServer server(config);
    std::string version = "?";
    if (const auto srvr = server.four_letter("srvr")) {
      const auto at = srvr->find("version: ");
      if (at != std::string::npos)
        version = srvr->substr(at + 9, srvr->find_first_of("-,\r\n", at + 9) - at - 9);
    }
    std::printf(
        "zookeeper_bench: ZooKeeper %s standalone on %s (forceSync=%s), %d round(s) of "
        "%.1f s after a %.1f s warm-up, median\n",
        version.c_str(), server.connect_string().c_str(), settings.fsync ? "yes" : "no",
        settings.rounds, settings.seconds, settings.warmup_seconds);
    std::fflush(stdout);

    const std::string url = server.url();
    std::printf("  distlock uncontended...\n");
    std::fflush(stdout);
    const Result d_uncontended = run_distlock(url, "uncontended", 1, settings);
    std::printf("  distlock contended (%d waiters)...\n", settings.waiters);
    std::fflush(stdout);
    const Result d_contended = run_distlock(url, "contended", settings.waiters + 1, settings);
    std::printf("  Curator uncontended...\n");
    std::fflush(stdout);
    const double c_uncontended =
        run_curator(server, "/distlock/bench/curator-uncontended", "uncontended", settings);
    std::printf("  Curator contended (%d waiters)...\n", settings.waiters);
    std::fflush(stdout);
    const double c_contended =
        run_curator(server, "/distlock/bench/curator-contended", "contended", settings);

    std::printf("\n");
    std::printf("  %-46s %12s %12s %10s\n", "", "distlock", "Curator", "distlock/");
    std::printf("  %-46s %12s %12s %10s\n", "", "", "", "Curator");
    std::printf("  %-46s %12.0f %12.0f %10.2f\n", "uncontended acquire+release per second",
                d_uncontended.rate, c_uncontended, d_uncontended.rate / c_uncontended);
    char label[96];
    std::snprintf(label, sizeof label, "contended handoffs per second (%d waiters)",
                  settings.waiters);
    std::printf("  %-46s %12.0f %12.0f %10.2f\n", label, d_contended.rate, c_contended,
                d_contended.rate / c_contended);
    std::printf("\n");
    std::printf("  %-46s %12.2f\n", "distlock round trips per uncontended cycle",
                d_uncontended.round_trips);
    std::printf("  %-46s %12.2f\n", "distlock round trips per contended handoff",
                d_contended.round_trips);
    std::printf("  %-46s %12.2f\n", "distlock watch notifications per handoff",
                d_contended.notifications);
    std::fflush(stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zookeeper_bench: %s\n", e.what());
    return 1;
  }
}
