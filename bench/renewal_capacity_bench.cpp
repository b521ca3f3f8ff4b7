// SPDX-License-Identifier: Apache-2.0
// renewal_capacity_bench: what keeping many leases alive costs the client process.
//
// Starts a private redis-server, takes N leases of one ttl on one client (each its own lock
// name), then holds them for a window while the client's renewal thread keeps them alive,
// and reports the process's CPU time over the window (user + system, as a share of one
// core), the renewals per second the server granted and the leases lost. The main thread
// does nothing while the window runs, so the CPU is the renewal thread's.
//
//   renewal_capacity_bench [--leases N[,N...]] [--ttl-ms T] [--window-ms W] [--quick]
//                          [--require-goal] [--json PATH]
//
// Defaults: 1000,10000,100000 leases of 30 s held for 40 s (every lease renewed 3 or 4
// times). The goal is for the largest size: at most 2% of one core and no lease lost.
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <distlock/distlock.h>
#include <nlohmann/json.hpp>

#include "redis_server.h"

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kGoalCpuShare = 0.02;

struct Settings {
  std::vector<int> sizes = {1000, 10000, 100000};
  std::chrono::milliseconds ttl = 30s;
  std::chrono::milliseconds window = 40s;
  bool require_goal = false;
  std::string json_path;
};

struct Result {
  int leases = 0;
  double cpu_share = 0;       // of one core, over the window
  double renewals_per_s = 0;  // granted renewals
  std::uint64_t renewal_failures = 0;
  std::uint64_t lost = 0;  // leases reported lost or not valid at the end
  double acquire_seconds = 0;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr,
               "renewal_capacity_bench: %s\nusage: renewal_capacity_bench [--leases N[,N...]] "
               "[--ttl-ms T] [--window-ms W] [--quick] [--require-goal] [--json PATH]\n",
               message.c_str());
  std::exit(2);
}

long parse_positive(std::string_view flag, const std::string& text) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value < 1 || value > 10'000'000)
    usage_error("bad value for " + std::string(flag) + ": " + text);
  return value;
}

std::vector<int> parse_sizes(const std::string& text) {
  std::vector<int> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    sizes.push_back(
        static_cast<int>(parse_positive("--leases", text.substr(start, comma - start))));
    start = comma + 1;
  }
  return sizes;
}

Settings parse_args(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--leases")
      settings.sizes = parse_sizes(value());
    else if (arg == "--ttl-ms")
      settings.ttl = std::chrono::milliseconds(parse_positive(arg, value()));
    else if (arg == "--window-ms")
      settings.window = std::chrono::milliseconds(parse_positive(arg, value()));
    else if (arg == "--require-goal")
      settings.require_goal = true;
    else if (arg == "--json")
      settings.json_path = value();
    else if (arg == "--quick") {
      settings.sizes = {1000, 10000};
      settings.ttl = 3s;
      settings.window = 4s;
    } else {
      usage_error("unknown argument " + std::string(arg));
    }
  }
  return settings;
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

Result measure(const std::string& url, int count, const Settings& settings) {
  const distlock::LockSpec spec = distlock::spec("capacity", settings.ttl);
  auto client = distlock::Client::connect(url);
  Result result;
  result.leases = count;

  std::vector<distlock::Lease> leases;
  leases.reserve(static_cast<std::size_t>(count));
  const auto acquire_start = Clock::now();
  for (int i = 0; i < count; ++i) leases.push_back(client->acquire(spec, i));
  result.acquire_seconds = std::chrono::duration<double>(Clock::now() - acquire_start).count();

  const auto before = client->stats();
  const double cpu_before = process_cpu_seconds();
  const auto window_start = Clock::now();
  // The window is the measurement itself: the renewal thread works, this one only waits.
  std::this_thread::sleep_for(settings.window);
  const double cpu = process_cpu_seconds() - cpu_before;
  const double seconds = std::chrono::duration<double>(Clock::now() - window_start).count();
  const auto after = client->stats();

  result.cpu_share = cpu / seconds;
  result.renewals_per_s = static_cast<double>(after.renewals - before.renewals) / seconds;
  result.renewal_failures = after.renewal_failures - before.renewal_failures;
  for (const auto& lease : leases)
    if (!lease.valid()) ++result.lost;
  result.lost = std::max<std::uint64_t>(result.lost, after.lost);
  return result;
}

void write_json(const std::string& path, const Settings& settings,
                const std::vector<Result>& results, bool goal_met) {
  nlohmann::json sizes = nlohmann::json::array();
  for (const Result& r : results)
    sizes.push_back({{"leases", r.leases},
                     {"cpu_share_of_one_core", r.cpu_share},
                     {"renewals_per_s", r.renewals_per_s},
                     {"renewal_failures", r.renewal_failures},
                     {"lost", r.lost},
                     {"acquire_seconds", r.acquire_seconds}});
  const nlohmann::json document = {{"benchmark", "renewal_capacity"},
                                   {"ttl_ms", settings.ttl.count()},
                                   {"window_ms", settings.window.count()},
                                   {"results", sizes},
                                   {"goal",
                                    {{"leases", results.back().leases},
                                     {"cpu_share_of_one_core_at_most", kGoalCpuShare},
                                     {"lost", 0},
                                     {"met", goal_met}}}};
  std::ofstream out(path);
  out << document.dump(2) << '\n';
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse_args(argc, argv);
  try {
    distlock::testing::RedisServer server;
    std::printf(
        "renewal_capacity_bench: redis-server on 127.0.0.1:%u, ttl %lld ms, window %lld ms\n",
        static_cast<unsigned>(server.port()), static_cast<long long>(settings.ttl.count()),
        static_cast<long long>(settings.window.count()));
    std::printf("  %10s %12s %14s %10s %6s %12s\n", "leases", "CPU (core)", "renewals/s",
                "failures", "lost", "acquired in");
    std::fflush(stdout);
    std::vector<Result> results;
    for (const int count : settings.sizes) {
      const Result r = measure(server.url(), count, settings);
      std::printf("  %10d %11.2f%% %14.0f %10llu %6llu %11.1fs\n", r.leases, r.cpu_share * 100,
                  r.renewals_per_s, static_cast<unsigned long long>(r.renewal_failures),
                  static_cast<unsigned long long>(r.lost), r.acquire_seconds);
      std::fflush(stdout);
      results.push_back(r);
      server.cli({"FLUSHALL"});
    }
    const Result& largest = results.back();
    const bool goal_met = largest.cpu_share <= kGoalCpuShare && largest.lost == 0;
    std::printf("  goal at %d leases: CPU <= %.0f%% of one core, 0 lost: %s\n", largest.leases,
                kGoalCpuShare * 100, goal_met ? "met" : "NOT met");
    if (!settings.json_path.empty()) write_json(settings.json_path, settings, results, goal_met);
    return settings.require_goal && !goal_met ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "renewal_capacity_bench: %s\n", e.what());
    return 1;
  }
}
