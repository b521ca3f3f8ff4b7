// SPDX-License-Identifier: Apache-2.0
// lock_kinds_bench: what each lock kind costs on Redis, and how a fair lock hands over.
//
// Starts a private redis-server and measures, with the kinds alternating within each round:
//   cycles     uncontended acquire + release on one client and one name, for the exclusive
//              lock, a read lock, a write lock, a semaphore of 4 permits and a fair lock; each
//              as a ratio to the exclusive lock's
//   handoffs   8 threads, each on a client of its own, take one lock in turn (acquire,
//              release, ask again) for the fair and the exclusive lock: handoffs per second, and
//              the waiters woken per release (the clients' woken_by_release over the releases;
//              a fair lock's goal is exactly 1: the next waiter, not one per client)
//
//   lock_kinds_bench [--cycles N] [--handoffs N] [--rounds N] [--quick] [--require-goal]
//                    [--json PATH]
//
// Figures are medians over the rounds. --require-goal exits 1 when a fair release woke more
// or fewer than one waiter on average (outside 0.95 to 1.05).
#include <distlock/distlock.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "redis_reference.h"
#include "redis_server.h"

using namespace std::chrono_literals;

namespace {

constexpr double kWakeGoalLow = 0.95;
constexpr double kWakeGoalHigh = 1.05;
constexpr int kHandoffThreads = 8;

struct Settings {
  int cycles = 5000;
  int handoffs = 4000;
  int rounds = 5;
  bool require_goal = false;
  std::string json_path;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr,
               "lock_kinds_bench: %s\nusage: lock_kinds_bench [--cycles N] [--handoffs N] "
               "[--rounds N] [--quick] [--require-goal] [--json PATH]\n",
               message.c_str());
  std::exit(2);
}

int parse_count(std::string_view flag, const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 100'000'000)
    usage_error("bad value for " + std::string(flag) + ": " + text);
  return static_cast<int>(value);
}

Settings parse_args(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage_error(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--cycles")
      settings.cycles = parse_count(arg, value());
    else if (arg == "--handoffs")
      settings.handoffs = parse_count(arg, value());
    else if (arg == "--rounds")
      settings.rounds = parse_count(arg, value());
    else if (arg == "--quick") {
      settings.cycles = 1000;
      settings.handoffs = 800;
      settings.rounds = 3;
    } else if (arg == "--require-goal")
      settings.require_goal = true;
    else if (arg == "--json")
      settings.json_path = value();
    else
      usage_error("unknown argument " + std::string(arg));
  }
  return settings;
}

struct Kind {
  std::string name;
  distlock::LockSpec spec;
};

std::vector<Kind> kinds() {
  return {{"exclusive", distlock::spec("kinds", 30s)},
          {"read", distlock::spec("kinds", 30s, distlock::read)},
          {"write", distlock::spec("kinds", 30s, distlock::write)},
          {"permits(4)", distlock::spec("kinds", 30s, distlock::permits(4))},
          {"fair", distlock::spec("kinds", 30s, distlock::fair)}};
}

struct Handoffs {
  double per_second = 0;
  double woken_per_release = 0;
  std::uint64_t woken_by_timeout = 0;
};

// kHandoffThreads threads, a client each, take the lock `total` times in all, in turn.
Handoffs handoffs(const std::string& url, const distlock::LockSpec& lock, int total,
                  const std::string& key) {
  std::vector<std::shared_ptr<distlock::Client>> clients;
  for (int i = 0; i < kHandoffThreads; ++i) clients.push_back(distlock::Client::connect(url));
  std::atomic<int> left{total};
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  for (auto& client : clients) {
    threads.emplace_back([&, client] {
      try {
        while (left.fetch_sub(1) > 0) client->acquire(lock, key).release();
      } catch (const std::exception& error) {
        std::fprintf(stderr, "lock_kinds_bench: %s\n", error.what());
        failed = true;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (failed) throw std::runtime_error("a handoff thread failed");
  Handoffs result;
  result.per_second = total / seconds;
  std::uint64_t woken = 0;
  for (const auto& client : clients) {
    const distlock::ClientStats stats = client->stats();
    woken += stats.woken_by_release;
    result.woken_by_timeout += stats.woken_by_timeout;
  }
  result.woken_per_release = static_cast<double>(woken) / total;
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse_args(argc, argv);
  try {
    distlock::testing::RedisServer server;
    auto client = distlock::Client::connect(server.url());
    const auto all = kinds();
    std::map<std::string, std::vector<double>> cycles;
    const std::vector<std::string> handoff_kinds = {"exclusive", "fair"};
    std::map<std::string, std::vector<Handoffs>> handed;
    for (int round = 0; round < settings.rounds; ++round) {
      for (const Kind& kind : all)
        cycles[kind.name].push_back(distlock::bench::cycles_per_second(
            *client, settings.cycles, "cycle-" + std::to_string(round), kind.spec));
      for (const std::string& name : handoff_kinds) {
        const auto lock = name == "fair" ? distlock::spec("kinds", 30s, distlock::fair)
                                         : distlock::spec("kinds", 30s);
        handed[name].push_back(
            handoffs(server.url(), lock, settings.handoffs, "relay-" + std::to_string(round)));
      }
    }

    const double exclusive = distlock::bench::median(cycles["exclusive"]);
    std::printf("\n  Uncontended acquire + release on Redis, one client, one name (%d rounds)\n",
                settings.rounds);
    std::printf("    %-12s %12s %10s\n", "kind", "cycles/s", "÷ exclusive");
    nlohmann::json cycle_json = nlohmann::json::object();
    for (const Kind& kind : all) {
      const double rate = distlock::bench::median(cycles[kind.name]);
      std::printf("    %-12s %12.0f %10.2f\n", kind.name.c_str(), rate, rate / exclusive);
      cycle_json[kind.name] = {{"cycles_per_second", rate},
                               {"ratio_to_exclusive", rate / exclusive}};
    }

    std::printf("\n  %d threads, a client each, taking one lock in turn\n", kHandoffThreads);
    std::printf("    %-12s %12s %18s %18s\n", "kind", "handoffs/s", "woken per release",
                "woken by timeout");
    nlohmann::json handoff_json = nlohmann::json::object();
    bool goal_met = true;
    for (const std::string& name : handoff_kinds) {
      std::vector<double> rates;
      std::vector<double> woken;
      std::uint64_t timeouts = 0;
      for (const Handoffs& h : handed[name]) {
        rates.push_back(h.per_second);
        woken.push_back(h.woken_per_release);
        timeouts += h.woken_by_timeout;
      }
      const double rate = distlock::bench::median(rates);
      const double woken_median = distlock::bench::median(woken);
      std::printf("    %-12s %12.0f %18.2f %18llu\n", name.c_str(), rate, woken_median,
                  static_cast<unsigned long long>(timeouts));
      handoff_json[name] = {{"handoffs_per_second", rate},
                            {"woken_per_release", woken_median},
                            {"woken_by_timeout", timeouts}};
      if (name == "fair") goal_met = woken_median >= kWakeGoalLow && woken_median <= kWakeGoalHigh;
    }
    std::printf("\n  goal: a fair release wakes 1 waiter (%.2f-%.2f): %s\n", kWakeGoalLow,
                kWakeGoalHigh, goal_met ? "met" : "NOT met");

    if (!settings.json_path.empty()) {
      const nlohmann::json document = {
          {"benchmark", "lock_kinds"},
          {"rounds", settings.rounds},
          {"cycles", cycle_json},
          {"handoffs", handoff_json},
          {"handoff_threads", kHandoffThreads},
          {"goal", {{"fair_woken_per_release", {kWakeGoalLow, kWakeGoalHigh}}, {"met", goal_met}}}};
      std::ofstream(settings.json_path) << document.dump(2) << "\n";
    }
    return settings.require_goal && !goal_met ? 1 : 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "lock_kinds_bench: %s\n", error.what());
    return 2;
  }
}
