// SPDX-License-Identifier: Apache-2.0
// redis_peer_bench: distlock beside the Redis locks of other languages (bench/peers: redis-py's
// Lock, node-redlock 4, redis-semaphore's Mutex) and beside the server's own speed, all
// against one private redis-server in one run.
//
//   cycles     one client, one lock name, uncontended acquire + release as fast as it goes:
//              distlock, then each peer in a process of its own; a 30 s lease for all.
//              distlock's lease leaves its scope (the release's reply is read by the next
//              acquire); "release()" is the same with Lease::release(), which waits for it
//   parallel   8 threads sharing one distlock Client (the normal use), each on its own name
//   handoff    a holder releases while a waiter in another client (the peers: on another
//              connection of the same process) is blocked in acquire: the time from just
//              before release() to the waiter's acquire returning. The release comes once the
//              waiter has been refused, 1 ms plus a random part of its poll interval later.
//              distlock's fair lock too: its release grants the lock to the waiter
//   reference  redis-benchmark EVALSHA of a one-command script, with 1 and with 8 connections;
//              and the same call's round trip after 1 ms without traffic, as a handoff's
//              release meets the server (the handoffs are reported in both units); and a
//              PUBLISH after 1 ms without traffic, read by a subscriber thread blocked in
//              read() and handed to a thread waiting on a condition variable: a handoff's
//              notification with nothing of distlock's
//
// Goals, each from figures of the same run (docs/performance.md). A back-to-back round trip is
// 1 ÷ EVALSHA/s at -c 1. The scope-exit cycle is one awaited round trip (the release is sent
// and its reply read with the next acquire's); the awaited cycle, Lease::release(), is two.
//   1  awaited cycles/s ÷ (EVALSHA/s at -c 1 ÷ 2)          ≥ 0.95  (median of per-round ratios)
//   2  scope-exit cycles/s ÷ EVALSHA/s at -c 1             ≥ 0.9
//   3  scope-exit cycles/s ÷ the fastest peer's            ≥ 1.8
//   4  8 threads' cycles/s ÷ (EVALSHA/s at -c 8 ÷ 2)       ≥ 1.0
//   5  the server's CPU per 8 threads' cycle ÷ per two EVALSHA calls at -c 8   ≤ 1.0
//   6  handoff p50 in back-to-back round trips             ≤ 2.0   (p50 of all rounds' handoffs)
//   7  the same for the fair lock                          ≤ 1.5
// Reported beside them: the awaited cycle against the fastest peer (whose cycle also awaits
// both calls; neither side can pass its own two round trips), and an idle round trip in
// back-to-back ones (the handoff goals stand where it is 1.5 or more).
//
//   redis_peer_bench [--rounds N] [--cycles N] [--handoffs N] [--requests N] [--json PATH]
//                    [--quick] [--require-goal] [--shared-cores]
//
// The server runs on CPU 0 and everything else on the other CPUs (server_cpu.h), unless
// --shared-cores. The server's CPU time per cycle is reported beside the 8 threads' rate.
//
// The measurements alternate, --rounds times. The peers come from bench/peers/install.sh
// <build dir>; one that is missing is an error. --json writes every figure, ratio and goal;
// --require-goal exits 1 when a goal is not met.
#include <distlock/distlock.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <latch>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "redis_reference.h"
#include "redis_server.h"
#include "server_cpu.h"
#include "subprocess.h"

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

constexpr int kThreads = 8;
// The wait bounds a handoff that goes wrong (the thread waiting is joined) and is never reached
// otherwise.
constexpr auto kHandoffLock = distlock::spec("bench", 30s, distlock::wait(10s));
constexpr auto kFairHandoffLock = distlock::spec("bench", 30s, distlock::wait(10s), distlock::fair);
// Debian's python3-redis is installed for Debian's interpreter; a python3 found first on PATH
// (pyenv, a virtualenv) need not see it.
constexpr const char* kPython = "/usr/bin/python3";

struct Settings {
  int rounds = 5;
  int cycles = 20000;           // per contender and round, one client
  int parallel_cycles = 80000;  // all threads together, per round (--cycles: 4 x cycles)
  int handoffs = 40;            // per contender and round
  int requests = 50000;         // redis-benchmark -c 1; -c 8 gets twice as many
  std::string json_path;
  bool require_goal = false;
  bool shared_cores = false;
};

struct Peer {
  Peer(std::string name, std::filesystem::path program, std::filesystem::path driver)
      : name(std::move(name)), program(std::move(program)), driver(std::move(driver)) {}

  std::string name;
  std::filesystem::path program;
  std::filesystem::path driver;
  // What the driver reports of itself.
  std::string library;
  std::string settings;
  std::vector<double> cycles;      // cycles/s, one per round
  std::vector<double> handoff_us;  // every round's handoffs
};

struct Goal {
  std::string name;
  double value;
  double goal;
  bool at_least;  // else: at most
  std::string basis;

  bool met() const { return at_least ? value >= goal : value <= goal; }
};

int parse_count(const char* flag, const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 100'000'000) {
    std::fprintf(stderr, "redis_peer_bench: bad value for %s: %s\n", flag, text);
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
        std::fprintf(stderr, "redis_peer_bench: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--rounds")
      settings.rounds = parse_count(argv[i], value());
    else if (arg == "--cycles") {
      settings.cycles = parse_count(argv[i], value());
      settings.parallel_cycles = 4 * settings.cycles;
    } else if (arg == "--handoffs")
      settings.handoffs = parse_count(argv[i], value());
    else if (arg == "--requests")
      settings.requests = parse_count(argv[i], value());
    else if (arg == "--json")
      settings.json_path = value();
    else if (arg == "--require-goal")
      settings.require_goal = true;
    else if (arg == "--shared-cores")
      settings.shared_cores = true;
    else if (arg == "--quick") {
      settings.rounds = 1;
      settings.cycles = 2000;
      settings.parallel_cycles = 8000;
      settings.handoffs = 10;
      settings.requests = 5000;
    } else {
      std::fprintf(stderr,
                   "usage: redis_peer_bench [--rounds N] [--cycles N] [--handoffs N] "
                   "[--requests N] [--json PATH] [--quick] [--require-goal] [--shared-cores]\n");
      std::exit(2);
    }
  }
  return settings;
}

// The drivers, their interpreters and their libraries, or an error that says how to install
// what is missing.
std::vector<Peer> find_peers() {
  const std::filesystem::path directory = DISTLOCK_BENCH_PEERS_DIR;
  const std::string install = DISTLOCK_BENCH_PEERS_INSTALL;
  const auto node = distlock::testing::find_program("node");
  if (node.empty())
    throw std::runtime_error("node not found (Debian: nodejs), then run " + install);
  for (const char* package : {"ioredis", "redlock", "redis-semaphore"}) {
    if (!std::filesystem::exists(directory / "node_modules" / package / "package.json")) {
      throw std::runtime_error("the npm package " + std::string(package) + " is missing from " +
                               (directory / "node_modules").string() + ": run " + install);
    }
  }
  distlock::testing::Subprocess::Options quiet;
  quiet.merge_stderr = true;
  distlock::testing::Subprocess probe(kPython, {"-c", "import redis"}, quiet);
  const std::string complaint = probe.read_all(60s);
  if (!probe.wait(10s).success()) {
    throw std::runtime_error(std::string(kPython) +
                             " cannot import redis (Debian: python3-redis): run " + install + "\n" +
                             complaint);
  }
  return {
      {"redis-py Lock", kPython, directory / "redis_py_lock.py"},
      {"node-redlock", node, directory / "node_redlock.js"},
      {"redis-semaphore Mutex", node, directory / "node_redis_semaphore.js"},
  };
}

// Runs a peer's driver; its one line of JSON.
json run_driver(Peer& peer, std::uint16_t port, const char* mode, int count) {
  distlock::testing::Subprocess process(
      peer.program, {peer.driver.string(), "--port", std::to_string(port), "--mode", mode,
                     "--count", std::to_string(count)});
  const std::string output = process.read_all(900s);
  const auto status = process.wait(30s);
  if (!status.success()) {
    throw std::runtime_error(peer.name + " (" + peer.driver.string() + " --mode " + mode +
                             ") failed, " + status.describe() + ": " + output);
  }
  json result;
  try {
    result = json::parse(output);
    peer.library = result.at("library").get<std::string>();
    peer.settings = result.at("settings").get<std::string>();
  } catch (const json::exception& e) {
    throw std::runtime_error(peer.name + " printed no result (" + e.what() + "): " + output);
  }
  return result;
}

// Cycles per second of `kThreads` threads on one client, each on a lock name of its own.
double parallel_cycles_per_second(distlock::Client& client, int total) {
  const int each = total / kThreads;
  std::latch start(kThreads + 1);
  std::vector<std::exception_ptr> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      try {
        distlock::bench::cycles_per_second(client, each, "parallel-" + std::to_string(t));
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  start.arrive_and_wait();
  const auto began = Clock::now();
  for (auto& thread : threads) thread.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
  return each * kThreads / seconds;
}

// One handoff from `holder` to a thread blocked in `waiter`'s acquire. The client counts a
// waiter as waiting once it is subscribed to the lock's releases and has found it held since:
// from then on the release cannot pass it by, so the holder releases 1 ms later.
double handoff_micros(distlock::Client& holder, distlock::Client& waiter,
                      const distlock::LockSpec& lock = kHandoffLock) {
  distlock::Lease held = holder.acquire(lock, "handoff");
  const std::uint64_t held_fence = held.fence();
  std::optional<distlock::Lease> won;
  Clock::time_point won_at;
  std::exception_ptr error;
  std::atomic<bool> done{false};
  std::jthread thread([&] {
    try {
      won = waiter.acquire(lock, "handoff");
      won_at = Clock::now();
    } catch (...) {
      error = std::current_exception();
    }
    done = true;
  });
  const auto limit = Clock::now() + 10s;
  while (waiter.stats().waiting == 0 && !done && Clock::now() < limit)
    std::this_thread::sleep_for(50us);
  const bool parked = waiter.stats().waiting == 1 && !done;
  std::this_thread::sleep_for(1ms);
  const auto released_at = Clock::now();
  held.release();
  thread.join();
  if (error) std::rethrow_exception(error);
  if (!parked) throw std::runtime_error("the waiter did not wait for the held lock within 10 s");
  if (won_at < released_at || won->fence() <= held_fence)
    throw std::runtime_error("the waiter got the lock while it was held");
  won->release();
  return std::chrono::duration<double, std::micro>(won_at - released_at).count();
}

// Nearest rank.
double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * values.size()));
  return values[std::max<std::size_t>(rank, 1) - 1];
}

// The percentiles, and every sample in order for a distribution plot.
json latency_json(std::vector<double> us, double evalsha_per_s) {
  std::sort(us.begin(), us.end());
  return {
      {"p50_us", percentile(us, 50)}, {"p90_us", percentile(us, 90)},
      {"p99_us", percentile(us, 99)}, {"p50_round_trips", percentile(us, 50) / 1e6 * evalsha_per_s},
      {"samples", us.size()},         {"sorted_us", us}};
}

void print_latency(const std::string& name, const std::vector<double>& us, double evalsha_per_s,
                   double distlock_p50) {
  const double p50 = percentile(us, 50);
  std::printf("    %-24s %10.0f %10.0f %10.0f %11.1f %12.1f\n", name.c_str(), p50,
              percentile(us, 90), percentile(us, 99), p50 / 1e6 * evalsha_per_s,
              p50 / distlock_p50);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse_args(argc, argv);
  try {
    const distlock::bench::ServerCpu server_cpu(settings.shared_cores);
    std::vector<Peer> peers = find_peers();
    distlock::testing::RedisServer server;
    server_cpu.place_server(server.pid());
    const std::string info = server.cli({"INFO", "server"});
    std::string redis_version = "?";
    if (auto at = info.find("redis_version:"); at != std::string::npos)
      redis_version = info.substr(at + 14, info.find_first_of("\r\n", at) - at - 14);
    std::printf("redis_peer_bench: redis-server %s on 127.0.0.1:%u, %s; %d rounds, alternating\n",
                redis_version.c_str(), static_cast<unsigned>(server.port()),
                server_cpu.describe().c_str(), settings.rounds);
    std::fflush(stdout);

    auto client = distlock::Client::connect(server.url());
    auto waiter = distlock::Client::connect(server.url());
    const std::string sha = distlock::bench::load_reference_script(server);

    // Connections, scripts and the waiter's subscription, before anything is timed.
    distlock::bench::cycles_per_second(*client, std::max(settings.cycles / 10, 1));
    parallel_cycles_per_second(*client, std::max(settings.parallel_cycles / 10, kThreads));
    handoff_micros(*client, *waiter);
    handoff_micros(*client, *waiter, kFairHandoffLock);

    std::vector<double> cycles, release_call_cycles, evalsha1, parallel, evalsha8, handoff_us,
        fair_handoff_us, idle_round_trip_us, notification_read_us, notification_relayed_us;
    std::vector<double> server_ratios, awaited_ratios, peer_ratios, awaited_peer_ratios,
        parallel_ratios;
    // The server's CPU time: per cycle of the 8 threads, per two calls of redis-benchmark -c 8.
    std::vector<double> parallel_server_us, evalsha8_server_us;
    const auto server_seconds = [&] { return distlock::bench::process_cpu_seconds(server.pid()); };
    for (int round = 1; round <= settings.rounds; ++round) {
      cycles.push_back(distlock::bench::cycles_per_second(*client, settings.cycles));
      release_call_cycles.push_back(distlock::bench::cycles_per_second(
          *client, settings.cycles, "cycle", distlock::bench::Ending::release_call));
      evalsha1.push_back(distlock::bench::evalsha_per_second(server, sha, settings.requests));
      double fastest = 0;
      for (auto& peer : peers) {
        const json result = run_driver(peer, server.port(), "cycles", settings.cycles);
        peer.cycles.push_back(result.at("cycles_per_s").get<double>());
        fastest = std::max(fastest, peer.cycles.back());
      }
      double before = server_seconds();
      parallel.push_back(parallel_cycles_per_second(*client, settings.parallel_cycles));
      parallel_server_us.push_back((server_seconds() - before) * 1e6 /
                                   (settings.parallel_cycles / kThreads * kThreads));
      before = server_seconds();
      evalsha8.push_back(distlock::bench::evalsha_per_second(server, sha, 2 * settings.requests,
                                                             "somekey", kThreads));
      evalsha8_server_us.push_back((server_seconds() - before) * 1e6 / settings.requests);
      server_ratios.push_back(cycles.back() / (evalsha1.back() / 2));
      awaited_ratios.push_back(release_call_cycles.back() / (evalsha1.back() / 2));
      peer_ratios.push_back(cycles.back() / fastest);
      awaited_peer_ratios.push_back(release_call_cycles.back() / fastest);
      parallel_ratios.push_back(parallel.back() / (evalsha8.back() / 2));

      std::vector<double> round_us;
      for (int i = 0; i < settings.handoffs; ++i)
        round_us.push_back(handoff_micros(*client, *waiter));
      handoff_us.insert(handoff_us.end(), round_us.begin(), round_us.end());
      std::vector<double> fair_round_us;
      for (int i = 0; i < settings.handoffs; ++i)
        fair_round_us.push_back(handoff_micros(*client, *waiter, kFairHandoffLock));
      fair_handoff_us.insert(fair_handoff_us.end(), fair_round_us.begin(), fair_round_us.end());
      idle_round_trip_us.push_back(
          distlock::bench::idle_round_trip_us(server, sha, 1ms, settings.handoffs));
      const auto notification =
          distlock::bench::idle_notification_us(server, 1ms, settings.handoffs);
      notification_read_us.push_back(notification.subscriber_us);
      notification_relayed_us.push_back(notification.relayed_us);
      std::printf(
          "  round %d: %.0f cycles/s (%.2f of EVALSHA/s -c 1 / 2), %.2f x the fastest peer;"
          " 8 threads %.2f of EVALSHA/s -c 8 / 2; handoff p50 %.0f us, fair %.0f us",
          round, cycles.back(), server_ratios.back(), peer_ratios.back(), parallel_ratios.back(),
          percentile(round_us, 50), percentile(fair_round_us, 50));
      std::fflush(stdout);
      for (auto& peer : peers) {
        const json result = run_driver(peer, server.port(), "handoff", settings.handoffs);
        const auto us = result.at("handoff_us").get<std::vector<double>>();
        if (us.size() != static_cast<std::size_t>(settings.handoffs))
          throw std::runtime_error(peer.name + " reported " + std::to_string(us.size()) +
                                   " handoffs, not " + std::to_string(settings.handoffs));
        peer.handoff_us.insert(peer.handoff_us.end(), us.begin(), us.end());
        std::printf(", %s %.0f us", peer.name.c_str(), percentile(us, 50));
      }
      std::printf("\n");
      std::fflush(stdout);
    }

    using distlock::bench::median;
    const double evalsha1_per_s = median(evalsha1);
    const Peer& fastest = *std::max_element(
        peers.begin(), peers.end(),
        [](const Peer& a, const Peer& b) { return median(a.cycles) < median(b.cycles); });
    const double evalsha8_server_us_median = median(evalsha8_server_us);
    const std::vector<Goal> goals = {
        {"awaited cycles/s / (EVALSHA/s -c 1 / 2)", median(awaited_ratios), 0.95, true,
         "median of per-round ratios; both sides two awaited round trips a cycle"},
        {"scope-exit cycles/s / EVALSHA/s -c 1", median(server_ratios) / 2, 0.9, true,
         "median of per-round ratios; both sides one awaited round trip a cycle"},
        {"scope-exit cycles/s / fastest peer's (" + fastest.name + ")", median(peer_ratios), 1.8,
         true, "median of per-round ratios, against the round's fastest peer, which awaits both"},
        {"8 threads' cycles/s / (EVALSHA/s -c 8 / 2)", median(parallel_ratios), 1.0, true,
         "median of per-round ratios"},
        {"server CPU per 8-thread cycle / per two EVALSHA -c 8",
         median(parallel_server_us) / evalsha8_server_us_median, 1.0, false,
         "medians of the rounds' server CPU time"},
        {"handoff p50 in back-to-back round trips",
         percentile(handoff_us, 50) / 1e6 * evalsha1_per_s, 2.0, false,
         "p50 of all handoffs x median EVALSHA/s -c 1"},
        {"fair handoff p50 in back-to-back round trips",
         percentile(fair_handoff_us, 50) / 1e6 * evalsha1_per_s, 1.5, false,
         "p50 of all handoffs x median EVALSHA/s -c 1"},
    };

    std::printf("\n  Uncontended acquire + release, one client, one lock name, 30 s lease\n");
    std::printf("    %-24s %10s %12s   %s\n", "", "cycles/s", "distlock /", "library");
    std::printf("    %-24s %10.0f %12s   %s\n", "distlock", median(cycles), "", "this tree");
    std::printf("    %-24s %10.0f %12s   %s\n", "distlock, release()", median(release_call_cycles),
                "", "waits for the release's reply");
    for (const auto& peer : peers) {
      std::printf("    %-24s %10.0f %12.2f   %s\n", peer.name.c_str(), median(peer.cycles),
                  median(cycles) / median(peer.cycles), peer.library.c_str());
    }
    std::printf(
        "    %-24s %10s %12.2f   release() against the fastest peer: both await two\n"
        "    %-24s %10s %12s   round trips a cycle\n",
        "", "", median(awaited_peer_ratios), "", "", "");
    std::printf(
        "    %-24s %10.0f %12s   %d threads, one Client, a lock name each; the server's\n"
        "    %-24s %10s %12s   CPU %.1f us a cycle (redis-benchmark -c 8: %.1f us for two "
        "calls)\n",
        "distlock, 8 threads", median(parallel), "", kThreads, "", "", "",
        median(parallel_server_us), median(evalsha8_server_us));

    const double distlock_p50 = percentile(handoff_us, 50);
    std::printf("\n  Handoff to a waiter in another client, %zu each (1 round trip = %.0f us)\n",
                handoff_us.size(), 1e6 / evalsha1_per_s);
    std::printf("    %-24s %10s %10s %10s %11s %12s\n", "", "p50 us", "p90 us", "p99 us",
                "p50 in RTs", "/ distlock");
    print_latency("distlock", handoff_us, evalsha1_per_s, distlock_p50);
    print_latency("distlock, fair", fair_handoff_us, evalsha1_per_s, distlock_p50);
    const double idle_us = median(idle_round_trip_us);
    std::printf(
        "    %-24s %.0f us after 1 ms idle (%.2f back-to-back ones): handoff p50 %.2f of them, "
        "fair %.2f\n",
        "1 idle round trip", idle_us, idle_us / 1e6 * evalsha1_per_s, distlock_p50 / idle_us,
        percentile(fair_handoff_us, 50) / idle_us);
    const double read_us = median(notification_read_us);
    const double relayed_us = median(notification_relayed_us);
    std::printf(
        "    %-24s %.0f us after 1 ms idle to a subscriber blocked in read(), %.0f us to the\n"
        "    %-24s thread it hands it to: fair handoff p50 %.2f of the latter, handoff p50 %.2f\n"
        "    %-24s of it and one back-to-back round trip\n",
        "bare PUBLISH", read_us, relayed_us, "", percentile(fair_handoff_us, 50) / relayed_us,
        distlock_p50 / (relayed_us + 1e6 / evalsha1_per_s), "");
    for (const auto& peer : peers)
      print_latency(peer.name, peer.handoff_us, evalsha1_per_s, distlock_p50);
    std::printf("    %-24s %s\n", "distlock", "woken by the release (Redis pub/sub); wait(10s)");
    std::printf("    %-24s %s\n", "distlock, fair", "granted by the release, told by pub/sub");
    for (const auto& peer : peers)
      std::printf("    %-24s %s\n", peer.name.c_str(), peer.settings.c_str());

    std::printf("\n  Server reference: redis-benchmark EVALSHA (one EXISTS), median\n");
    std::printf("    %-24s %10.0f /s   (%.0f us a call)\n", "-c 1", evalsha1_per_s,
                1e6 / evalsha1_per_s);
    std::printf("    %-24s %10.0f /s\n", "-c 8", median(evalsha8));

    std::printf("\n  Goals\n");
    bool all_met = true;
    for (std::size_t i = 0; i < goals.size(); ++i) {
      const Goal& goal = goals[i];
      all_met = all_met && goal.met();
      std::printf("    %zu  %-58s %6.2f   %s %.2f   %s\n", i + 1, goal.name.c_str(), goal.value,
                  goal.at_least ? ">=" : "<=", goal.goal, goal.met() ? "met" : "NOT met");
    }
    std::fflush(stdout);

    if (!settings.json_path.empty()) {
      json result = {
          {"benchmark", "redis_peer_bench"},
          {"date", utc_now()},
          {"cpus", std::thread::hardware_concurrency()},
          {"cpu_placement", server_cpu.describe()},
          {"redis_version", redis_version},
          {"settings",
           {{"rounds", settings.rounds},
            {"cycles", settings.cycles},
            {"parallel_cycles", settings.parallel_cycles},
            {"threads", kThreads},
            {"handoffs_per_round", settings.handoffs},
            {"requests", settings.requests},
            {"lease_ms", 30000}}},
          {"reference",
           {{"evalsha_per_s_c1", evalsha1_per_s},
            {"evalsha_per_s_c8", median(evalsha8)},
            {"evalsha_c8_server_cpu_us_per_two_calls", evalsha8_server_us_median},
            {"idle_round_trip_us", median(idle_round_trip_us)},
            {"idle_notification_read_us", read_us},
            {"idle_notification_relayed_us", relayed_us},
            {"rounds",
             {{"evalsha_per_s_c1", evalsha1},
              {"evalsha_per_s_c8", evalsha8},
              {"idle_round_trip_us", idle_round_trip_us},
              {"idle_notification_read_us", notification_read_us},
              {"idle_notification_relayed_us", notification_relayed_us}}}}},
          {"distlock",
           {{"cycles_per_s", median(cycles)},
            {"release_call_cycles_per_s", median(release_call_cycles)},
            {"parallel_cycles_per_s", median(parallel)},
            {"parallel_server_cpu_us_per_cycle", median(parallel_server_us)},
            {"handoff", latency_json(handoff_us, evalsha1_per_s)},
            {"handoff_settings", "woken by the release (Redis pub/sub); wait(10s)"},
            {"fair_handoff", latency_json(fair_handoff_us, evalsha1_per_s)},
            {"fair_handoff_settings", "granted by the release, told by pub/sub; wait(10s)"},
            {"rounds",
             {{"cycles_per_s", cycles},
              {"release_call_cycles_per_s", release_call_cycles},
              {"parallel_cycles_per_s", parallel},
              {"parallel_server_cpu_us_per_cycle", parallel_server_us}}}}},
          {"ratios",
           {{"cycles_to_evalsha_c1_half", server_ratios},
            {"release_call_cycles_to_evalsha_c1_half", awaited_ratios},
            {"cycles_to_fastest_peer", peer_ratios},
            {"release_call_cycles_to_fastest_peer", awaited_peer_ratios},
            {"parallel_cycles_to_evalsha_c8_half", parallel_ratios}}},
      };
      for (const auto& peer : peers) {
        json handoff = latency_json(peer.handoff_us, evalsha1_per_s);
        handoff["p50_over_distlock"] = percentile(peer.handoff_us, 50) / distlock_p50;
        result["peers"].push_back(
            {{"name", peer.name},
             {"library", peer.library},
             {"settings", peer.settings},
             {"cycles_per_s", median(peer.cycles)},
             {"distlock_cycles_over_peer", median(cycles) / median(peer.cycles)},
             {"handoff", handoff},
             {"rounds", {{"cycles_per_s", peer.cycles}}}});
      }
      for (const auto& goal : goals) {
        result["goals"].push_back({{"name", goal.name},
                                   {"value", goal.value},
                                   {"goal", goal.goal},
                                   {"comparison", goal.at_least ? ">=" : "<="},
                                   {"basis", goal.basis},
                                   {"met", goal.met()}});
      }
      result["all_goals_met"] = all_met;
      std::ofstream out(settings.json_path);
      out << result.dump(2) << '\n';
      if (!out) throw std::runtime_error("cannot write " + settings.json_path);
      std::printf("\n  written: %s\n", settings.json_path.c_str());
    }

    client.reset();
    waiter.reset();
    return settings.require_goal && !all_met ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "redis_peer_bench: %s\n", e.what());
    return 1;
  }
}
