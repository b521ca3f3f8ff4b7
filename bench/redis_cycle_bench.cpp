// SPDX-License-Identifier: Apache-2.0
// redis_cycle_bench: how close an uncontended acquire+release cycle comes to the speed of
// the server itself.
//
// Starts a private redis-server, runs acquire+release cycles on one client and one lock
// name, then runs redis-benchmark with one connection (EVALSHA of a one-line script) against
// the same server. A cycle needs at least two script calls (acquire, release), so the
// reference is EVALSHA/s ÷ 2, and
//
//     ratio = cycles/s ÷ (EVALSHA/s ÷ 2)          goal: ≥ 0.9
//
//   redis_cycle_bench [--cycles N] [--requests N] [--rounds N] [--quick] [--require-goal]
//                     [--shared-cores]
//
// The two measurements alternate, --rounds times; each figure (and the ratio) is the median
// over the rounds. --require-goal exits 1 below the goal. The server runs on CPU 0 and the
// rest on the other CPUs (server_cpu.h), unless --shared-cores.
#include <distlock/distlock.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "redis_reference.h"
#include "redis_server.h"
#include "server_cpu.h"

using namespace std::chrono_literals;

namespace {

constexpr double kGoal = 0.9;

struct Settings {
  int cycles = 20000;
  int warmup = 2000;
  int requests = 50000;
  int rounds = 5;
  bool require_goal = false;
  bool shared_cores = false;
};

// Sum of cmdstat_*:calls=N, plus the per-command counts, from INFO commandstats.
std::map<std::string, std::uint64_t> command_calls(const distlock::testing::RedisServer& server) {
  std::map<std::string, std::uint64_t> calls;
  std::istringstream info(server.cli({"INFO", "commandstats"}));
  std::string line;
  static const std::regex pattern(R"(^cmdstat_([^:]+):calls=(\d+))");
  while (std::getline(info, line)) {
    std::smatch match;
    if (std::regex_search(line, match, pattern)) {
      const auto n = std::stoull(match[2].str());
      calls[match[1].str()] += n;
      calls["*"] += n;
    }
  }
  return calls;
}

int parse_count(const char* flag, const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 100'000'000) {
    std::fprintf(stderr, "redis_cycle_bench: bad value for %s: %s\n", flag, text);
    std::exit(2);
  }
  return static_cast<int>(value);
}

Settings parse_args(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "redis_cycle_bench: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--cycles")
      settings.cycles = parse_count(argv[i], value());
    else if (arg == "--requests")
      settings.requests = parse_count(argv[i], value());
    else if (arg == "--rounds")
      settings.rounds = parse_count(argv[i], value());
    else if (arg == "--require-goal")
      settings.require_goal = true;
    else if (arg == "--shared-cores")
      settings.shared_cores = true;
    else if (arg == "--quick") {
      settings.cycles = 2000;
      settings.warmup = 200;
      settings.requests = 5000;
      settings.rounds = 1;
    } else {
      std::fprintf(stderr,
                   "usage: redis_cycle_bench [--cycles N] [--requests N] [--rounds N] "
                   "[--quick] [--require-goal] [--shared-cores]\n");
      std::exit(2);
    }
  }
  settings.warmup = std::min(settings.warmup, settings.cycles);
  return settings;
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse_args(argc, argv);
  try {
    const distlock::bench::ServerCpu server_cpu(settings.shared_cores);
    distlock::testing::RedisServer server;
    server_cpu.place_server(server.pid());
    const std::string version = server.cli({"INFO", "server"});
    std::string redis_version = "?";
    if (auto at = version.find("redis_version:"); at != std::string::npos) {
      redis_version = version.substr(at + 14, version.find_first_of("\r\n", at) - at - 14);
    }
    std::printf(
        "redis_cycle_bench: redis-server %s on 127.0.0.1:%u, %s; one client, one lock "
        "name\n",
        redis_version.c_str(), static_cast<unsigned>(server.port()), server_cpu.describe().c_str());
    std::fflush(stdout);

    auto client = distlock::Client::connect(server.url());

    const std::string sha = distlock::bench::load_reference_script(server);

    // Warm up (connections, script loading), then alternate the two measurements, so that a
    // change in the machine's load hits both alike; each round gives one ratio.
    distlock::bench::cycles_per_second(*client, settings.warmup);
    server.cli({"CONFIG", "RESETSTAT"});
    std::map<std::string, std::uint64_t> calls;
    std::vector<double> cycle_rates;
    std::vector<double> evalsha_rates;
    std::vector<double> ratios;
    for (int round = 0; round < settings.rounds; ++round) {
      const double cycles = distlock::bench::cycles_per_second(*client, settings.cycles);
      if (round == 0) {
        calls = command_calls(server);
        server.cli({"CONFIG", "RESETSTAT"});
      }
      const double evalsha = distlock::bench::evalsha_per_second(server, sha, settings.requests);
      cycle_rates.push_back(cycles);
      evalsha_rates.push_back(evalsha);
      ratios.push_back(cycles / (evalsha / 2.0));
      std::printf("  round %d: %8.0f cycles/s, %8.0f EVALSHA/s, ratio %.2f\n", round + 1, cycles,
                  evalsha, ratios.back());
      std::fflush(stdout);
    }
    const double total_cycles = static_cast<double>(settings.cycles);

    const double cycles_per_s = distlock::bench::median(cycle_rates);
    const double evalsha_per_s = distlock::bench::median(evalsha_rates);
    const double ratio = distlock::bench::median(ratios);

    std::printf("\n");
    std::printf("  %-44s %12.0f   (%d cycles x %d rounds, median)\n",
                "distlock acquire+release cycles/s", cycles_per_s, settings.cycles,
                settings.rounds);
    std::printf("  %-44s %12.0f   (redis-benchmark -c 1 -n %d, median)\n",
                "redis-benchmark EVALSHA/s", evalsha_per_s, settings.requests);
    std::printf("  %-44s %12.2f   (goal >= %.1f: %s)\n",
                "ratio = cycles/s / (EVALSHA/s / 2), median", ratio, kGoal,
                ratio >= kGoal ? "met" : "NOT met");
    std::printf("  %-44s %12.0f us\n", "one cycle", 1e6 / cycles_per_s);
    std::printf("  %-44s %12.0f us\n", "one EVALSHA round trip", 1e6 / evalsha_per_s);
    // What one cycle costs the server. INFO commandstats counts the commands a script runs
    // as well as the script call itself; this program's own CONFIG/INFO calls are left out.
    std::string per_command;
    double scripts = 0;
    double counted = 0;
    for (const auto& [name, n] : calls) {
      if (name == "*" || name.rfind("config", 0) == 0 || name.rfind("info", 0) == 0) continue;
      if (name == "evalsha" || name == "eval") scripts += static_cast<double>(n);
      counted += static_cast<double>(n);
      char buffer[96];
      std::snprintf(buffer, sizeof buffer, "%s%s %.2f", per_command.empty() ? "" : ", ",
                    name.c_str(), static_cast<double>(n) / total_cycles);
      per_command += buffer;
    }
    std::printf("  %-44s %12.2f\n", "script calls (EVAL/EVALSHA) per cycle",
                scripts / total_cycles);
    std::printf("  %-44s %12.2f   (%s)\n", "commands per cycle, scripts' own included",
                counted / total_cycles, per_command.c_str());
    std::fflush(stdout);

    client.reset();
    return settings.require_goal && ratio < kGoal ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "redis_cycle_bench: %s\n", e.what());
    return 1;
  }
}
