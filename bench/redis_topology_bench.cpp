// SPDX-License-Identifier: Apache-2.0
// redis_topology_bench: what Sentinel, min_replicas and Redlock cost, and how soon a lock is
// granted again after the master dies, all measured in one run on this machine.
//
// Starts a master with two replicas behind three sentinels, three independent masters, and a
// Redis Cluster of three masters with a replica each.
// Uncontended acquire+release cycles on one client and one lock name, each figure as a ratio
// of the server's own reference (redis-benchmark -c 1, EVALSHA of a one-line script):
//
//   redis://master                    cycles/s ÷ (EVALSHA/s ÷ 2)   two script calls a cycle
//   redis://master?min_replicas=1     the same, and WAIT after each grant
//   redis+sentinel://.../master        through the sentinels' master
//   redis+sentinel://...?min_replicas=1
//   redis+redlock://m1,m2,m3          cycles/s ÷ (EVALSHA/s ÷ 6)   six script calls a cycle
//   redis+cluster://...               against the EVALSHA rate of the lock's master
//
// Then the failover: the master is SIGKILLed while a client on the Sentinel URL tries for the
// lock every 10 ms; printed are the promotion time (kill until a replica first answers
// ROLE as master) and the time from the kill to the next grant (goal: within the promotion
// time + 1 s).
//
//   redis_topology_bench [--cycles N] [--requests N] [--rounds N] [--quick] [--json FILE]
//
// --json writes the same figures as JSON (scripts/run-bench.sh puts it in results.json).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <distlock/distlock.h>
#include <nlohmann/json.hpp>

#include "redis_cluster.h"
#include "redis_reference.h"
#include "redis_sentinel_group.h"
#include "redis_server.h"

using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

struct Settings {
  int cycles = 5000;
  int requests = 20000;
  int rounds = 3;
  std::string json_path;
};

Settings parse_args(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto number = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "redis_topology_bench: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return std::atoi(argv[++i]);
    };
    if (arg == "--cycles") {
      settings.cycles = number();
    } else if (arg == "--requests") {
      settings.requests = number();
    } else if (arg == "--rounds") {
      settings.rounds = number();
    } else if (arg == "--quick") {
      settings.cycles = 500;
      settings.requests = 2000;
      settings.rounds = 1;
    } else if (arg == "--json" && i + 1 < argc) {
      settings.json_path = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: redis_topology_bench [--cycles N] [--requests N] [--rounds N] "
                   "[--quick] [--json FILE]\n");
      std::exit(2);
    }
  }
  if (settings.cycles < 1 || settings.requests < 1 || settings.rounds < 1) {
    std::fprintf(stderr, "redis_topology_bench: counts must be positive\n");
    std::exit(2);
  }
  return settings;
}

struct Topology {
  std::string label;
  std::string url;
  double script_calls_per_cycle;
  // The reference's key: on a cluster node, one of its own slots.
  std::string reference_key = "somekey";
};

// The median over the rounds of cycles/s, each round beside the reference on `reference`,
// printed and returned.
nlohmann::json measure(const Topology& topology, const distlock::testing::RedisServer& reference,
                       const Settings& settings) {
  auto client = distlock::Client::connect(topology.url);
  const std::string sha = distlock::bench::load_reference_script(reference);
  distlock::bench::cycles_per_second(*client, std::min(settings.cycles, 500));
  std::vector<double> rates;
  std::vector<double> floors;
  std::vector<double> ratios;
  for (int round = 0; round < settings.rounds; ++round) {
    const double cycles = distlock::bench::cycles_per_second(*client, settings.cycles);
    const double evalsha = distlock::bench::evalsha_per_second(reference, sha, settings.requests,
                                                               topology.reference_key);
    rates.push_back(cycles);
    floors.push_back(evalsha / topology.script_calls_per_cycle);
    ratios.push_back(cycles / floors.back());
  }
  const double rate = distlock::bench::median(rates);
  std::printf("  %-34s %9.0f cycles/s  %6.0f us/cycle  ratio %.2f\n", topology.label.c_str(), rate,
              1e6 / rate, distlock::bench::median(ratios));
  std::fflush(stdout);
  return {{"topology", topology.label},
          {"cycles_per_s", rate},
          {"floor_cycles_per_s", distlock::bench::median(floors)},
          {"script_calls_per_cycle", topology.script_calls_per_cycle},
          {"ratio", distlock::bench::median(ratios)}};
}

bool answers_as_master(const distlock::testing::RedisServer& server) {
  try {
    const auto lines = distlock::testing::lines_of(server.cli({"ROLE"}));
    return !lines.empty() && lines.front() == "master";
  } catch (const std::runtime_error&) {
    return false;
  }
}

// From the master's SIGKILL to the next grant on the Sentinel URL, beside the time until a
// replica first answers ROLE as master (polled every 10 ms by a thread of its own), printed
// and returned.
nlohmann::json measure_failover(distlock::testing::SentinelGroup& group) {
  auto client = distlock::Client::connect(group.url() + "?connect_timeout=200ms");
  const auto lock_spec = distlock::spec("failover", 5s, distlock::try_only);
  const std::vector<distlock::testing::RedisServer*> replicas = group.replicas();
  const auto killed_at = Clock::now();
  Clock::time_point promoted_at{};
  std::thread promotion([&] {
    const auto give_up_at = killed_at + 120s;
    for (bool promoted = false; !promoted && Clock::now() < give_up_at;
         std::this_thread::sleep_for(10ms)) {
      for (const auto* replica : replicas) promoted = promoted || answers_as_master(*replica);
    }
    promoted_at = Clock::now();
  });
  std::thread failover([&] { group.kill_master_and_wait_for_failover(120s); });
  for (;;) {
    try {
      if (client->try_acquire(lock_spec, "bench").has_value()) break;
    } catch (const distlock::BackendUnavailable&) {
      // The master is gone and not yet replaced: try again.
    }
    std::this_thread::sleep_for(10ms);
  }
  const auto granted_at = Clock::now();
  failover.join();
  promotion.join();
  const auto ms = [&](Clock::time_point at) {
    return std::chrono::duration<double, std::milli>(at - killed_at).count();
  };
  std::printf("  %-34s %9.0f ms\n", "kill -> a replica answers as master", ms(promoted_at));
  std::printf("  %-34s %9.0f ms\n", "kill -> next grant", ms(granted_at));
  return {{"promoted_ms", ms(promoted_at)}, {"next_grant_ms", ms(granted_at)}};
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse_args(argc, argv);
  try {
    distlock::testing::SentinelGroup group;
    std::vector<std::unique_ptr<distlock::testing::RedisServer>> masters;
    std::string redlock = "redis+redlock://";
    for (int i = 0; i < 3; ++i) {
      masters.push_back(std::make_unique<distlock::testing::RedisServer>());
      redlock += (i == 0 ? "127.0.0.1:" : ",127.0.0.1:") + std::to_string(masters.back()->port());
    }
    const auto& master = group.master();
    std::printf(
        "redis_topology_bench: master + 2 replicas + 3 sentinels, 3 Redlock masters; %d "
        "cycles x %d rounds, median\n",
        settings.cycles, settings.rounds);
    nlohmann::json topologies = nlohmann::json::array();
    topologies.push_back(measure({"redis:// (the master)", master.url(), 2}, master, settings));
    topologies.push_back(measure({"redis://?min_replicas=1", master.url() + "?min_replicas=1", 2},
                                 master, settings));
    topologies.push_back(measure({"redis+sentinel://", group.url(), 2}, master, settings));
    topologies.push_back(
        measure({"redis+sentinel://?min_replicas=1", group.url() + "?min_replicas=1", 2}, master,
                settings));
    topologies.push_back(
        measure({"redis+redlock:// (3 masters)", redlock, 6}, *masters.front(), settings));
    distlock::testing::RedisCluster cluster;
    // The lock of cycles_per_second is bench:cycle; its master is the reference.
    topologies.push_back(
        measure({"redis+cluster:// (3 masters)", cluster.url(), 2, "{bench:cycle}"},
                cluster.master_of(cluster.key_slot("distlock:{bench:cycle}")), settings));
    const nlohmann::json failover = measure_failover(group);
    if (!settings.json_path.empty()) {
      std::ofstream out(settings.json_path);
      out << nlohmann::json{{"benchmark", "redis_topology"},
                            {"cycles", settings.cycles},
                            {"rounds", settings.rounds},
                            {"topologies", topologies},
                            {"failover", failover}}
                 .dump(2)
          << '\n';
      if (!out) throw std::runtime_error("cannot write " + settings.json_path);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "redis_topology_bench: %s\n", e.what());
    return 1;
  }
}
