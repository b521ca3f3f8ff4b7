// SPDX-License-Identifier: Apache-2.0
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
// Each round measures both sides for S seconds each, one after the other, taking turns at
// going first; both sides' clients stay connected throughout. So a host whose load comes and
// goes (other builds) weighs on both sides of a round alike, and the ratio of each round is
// the figure to read: the report gives the median of the rounds' ratios, and their range.
// The server runs standalone with forceSync=no (no fsync per transaction; --fsync turns it
// on), so the figures show the clients, not the disk. distlock's own counters give its server
// round trips per acquisition and its watch notifications per handoff; the CPU time of the
// clients' process and of the server are read around each side's rounds.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <distlock/distlock.h>
#include <nlohmann/json.hpp>

#include "server_cpu.h"
#include "subprocess.h"
#include "zookeeper_server.h"

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

using distlock::bench::process_cpu_seconds;

struct Settings {
  double seconds = 3;
  double warmup_seconds = 1;
  int rounds = 5;
  int waiters = 8;
  bool fsync = false;
  bool require_goal = false;
  std::string json_path;
};

// The goals (docs/performance.md): distlock per second ÷ Curator's, the median of the rounds'
// ratios.
constexpr double kUncontendedGoal = 1.3;
constexpr double kContendedGoal = 1.1;

enum class Mode { uncontended, contended };

const char* mode_name(Mode mode) { return mode == Mode::uncontended ? "uncontended" : "contended"; }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU seconds (user + system) this process has used, all its threads included.
double own_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// One side's measurements: a rate per round, and what the rounds cost in CPU.
struct Tally {
  std::vector<double> rates;  // acquisitions per second, one per round
  std::uint64_t acquisitions = 0;
  double client_cpu = 0;  // seconds
  double server_cpu = 0;
  double cpu_per_acquisition(double cpu) const {
    return acquisitions == 0 ? 0 : cpu / static_cast<double>(acquisitions) * 1e6;
  }
};

class DistlockSide {
 public:
  DistlockSide(const std::string& url, int threads) {
    for (int i = 0; i < threads; ++i) clients_.push_back(distlock::Client::connect(url));
  }

  // Acquisitions completed by all clients' threads within `seconds`.
  std::uint64_t measure(const std::string& key, double seconds) {
    constexpr auto bench_lock = distlock::spec("bench", 30s);
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(seconds));
    std::atomic<std::uint64_t> count{0};
    std::atomic<bool> failed{false};
    std::vector<std::thread> threads;
    for (const auto& client : clients_) {
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

  distlock::ClientStats total() const {
    distlock::ClientStats sum;
    for (const auto& c : clients_) {
      const auto s = c->stats();
      sum.acquired += s.acquired;
      sum.round_trips += s.round_trips;
      sum.notifications += s.notifications;
    }
    return sum;
  }

 private:
  std::vector<std::shared_ptr<distlock::Client>> clients_;
};

// A named pipe in a fresh temporary directory, open for writing, removed with the object.
// Opened read-write, so that opening does not wait for the reader and writes queue up even
// before it comes.
class CommandPipe {
 public:
  CommandPipe() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "zookeeper_bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
    directory_ = pattern;
    path_ = directory_ / "commands";
    if (::mkfifo(path_.c_str(), 0600) != 0 || (fd_ = ::open(path_.c_str(), O_RDWR)) < 0) {
      const int error = errno;
      std::filesystem::remove_all(directory_);
      throw std::runtime_error("cannot make the command pipe " + path_.string() + ": " +
                               std::strerror(error));
    }
  }
  ~CommandPipe() {
    ::close(fd_);
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }
  CommandPipe(const CommandPipe&) = delete;
  CommandPipe& operator=(const CommandPipe&) = delete;

  const std::filesystem::path& path() const { return path_; }
  void send(const std::string& line) {
    const std::string text = line + "\n";
    if (::write(fd_, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
      throw std::runtime_error("cannot write to the command pipe");
  }

 private:
  std::filesystem::path directory_;
  std::filesystem::path path_;
  int fd_ = -1;
};

// CuratorBench in its own JVM, its clients connected, measuring a round when asked.
class CuratorSide {
 public:
  CuratorSide(const distlock::testing::ZooKeeperServer& server, const Settings& settings) {
    const auto java = distlock::testing::java_program();
    if (java.empty()) throw std::runtime_error("java not found: Curator cannot run");
    process_ = std::make_unique<distlock::testing::Subprocess>(
        java, std::vector<std::string>{
                  "-Xmx512m", "-cp", DISTLOCK_CURATOR_BENCH_CLASSPATH, "CuratorBench", "--connect",
                  server.connect_string(), "--path", "/distlock/bench/curator", "--waiters",
                  std::to_string(settings.waiters), "--commands", commands_.path().string()});
    expect("ready", 120s);
  }

  int pid() const { return process_->pid(); }

  std::uint64_t measure(Mode mode, double seconds) {
    commands_.send(std::string("measure ") + mode_name(mode) + " " + std::to_string(seconds));
    const std::string answer = expect("measured ", std::chrono::seconds(60) + to_ms(seconds));
    return std::stoull(answer.substr(9));
  }

 private:
  static std::chrono::milliseconds to_ms(double seconds) {
    return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  }

  // The next line starting with `prefix`; the JVM's other lines are passed on.
  std::string expect(std::string_view prefix, std::chrono::milliseconds limit) {
    for (;;) {
      const auto line = process_->read_line(limit);
      if (!line) {
        const auto status = process_->wait(30s);
        throw std::runtime_error("CuratorBench ended (" + status.describe() + ") before \"" +
                                 std::string(prefix) + "\"");
      }
      if (line->starts_with(prefix)) return *line;
      std::fprintf(stderr, "CuratorBench: %s\n", line->c_str());
    }
  }

  CommandPipe commands_;
  std::unique_ptr<distlock::testing::Subprocess> process_;
};

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
    else if (arg == "--require-goal")
      settings.require_goal = true;
    else if (arg == "--json")
      settings.json_path = value();
    else if (arg == "--quick") {
      settings.seconds = 1;
      settings.warmup_seconds = 0.5;
      settings.rounds = 2;
    } else {
      std::fprintf(stderr,
                   "usage: zookeeper_bench [--seconds S] [--rounds N] [--waiters N] [--fsync] "
                   "[--quick] [--require-goal] [--json PATH]\n");
      std::exit(2);
    }
  }
  return settings;
}

struct Comparison {
  Tally distlock;
  Tally curator;
  std::vector<double> ratios;     // distlock / Curator, one per round
  distlock::ClientStats counted;  // distlock's counters over its measured rounds
};

// Both sides in turns: warm-up (the JIT, the sessions), then `rounds` rounds in which each
// side measures once, the first to go alternating from round to round.
Comparison compare(Mode mode, DistlockSide& ours, CuratorSide& curator,
                   const distlock::testing::ZooKeeperServer& server, const Settings& settings) {
  const std::string key = mode_name(mode);
  ours.measure(key, settings.warmup_seconds);
  curator.measure(mode, settings.warmup_seconds);

  Comparison result;
  const auto before = ours.total();
  const auto run = [&](bool distlock_side) {
    Tally& tally = distlock_side ? result.distlock : result.curator;
    const double server_before = process_cpu_seconds(server.pid());
    const double client_before =
        distlock_side ? own_cpu_seconds() : process_cpu_seconds(curator.pid());
    const auto start = Clock::now();
    const std::uint64_t n = distlock_side ? ours.measure(key, settings.seconds)
                                          : curator.measure(mode, settings.seconds);
    const double elapsed = seconds_since(start);
    tally.client_cpu +=
        (distlock_side ? own_cpu_seconds() : process_cpu_seconds(curator.pid())) - client_before;
    tally.server_cpu += process_cpu_seconds(server.pid()) - server_before;
    tally.acquisitions += n;
    tally.rates.push_back(static_cast<double>(n) / elapsed);
  };
  for (int round = 0; round < settings.rounds; ++round) {
    const bool distlock_first = round % 2 == 0;
    run(distlock_first);
    run(!distlock_first);
    result.ratios.push_back(result.distlock.rates.back() / result.curator.rates.back());
    std::printf("    round %d: %.0f / %.0f = %.2f\n", round + 1, result.distlock.rates.back(),
                result.curator.rates.back(), result.ratios.back());
    std::fflush(stdout);
  }
  const auto after = ours.total();
  result.counted.acquired = after.acquired - before.acquired;
  result.counted.round_trips = after.round_trips - before.round_trips;
  result.counted.notifications = after.notifications - before.notifications;
  return result;
}

void report(const char* label, const Comparison& c) {
  const auto [low, high] = std::minmax_element(c.ratios.begin(), c.ratios.end());
  char range[32];
  std::snprintf(range, sizeof range, "%.2f-%.2f", *low, *high);
  std::printf("  %-46s %10.0f %10.0f %8.2f %11s\n", label, median(c.distlock.rates),
              median(c.curator.rates), median(c.ratios), range);
}

void report_cpu(const char* label, const Comparison& c) {
  std::printf("  %-46s %10.0f %10.0f\n", label,
              c.distlock.cpu_per_acquisition(c.distlock.client_cpu),
              c.curator.cpu_per_acquisition(c.curator.client_cpu));
  std::printf("  %-46s %10.0f %10.0f\n", "    the server's CPU us per acquisition",
              c.distlock.cpu_per_acquisition(c.distlock.server_cpu),
              c.curator.cpu_per_acquisition(c.curator.server_cpu));
}

double per_acquisition(std::uint64_t count, const distlock::ClientStats& counted) {
  return counted.acquired == 0 ? 0
                               : static_cast<double>(count) / static_cast<double>(counted.acquired);
}

nlohmann::json comparison_json(const Comparison& c, double goal) {
  const auto [low, high] = std::minmax_element(c.ratios.begin(), c.ratios.end());
  return {{"distlock_per_s", median(c.distlock.rates)},
          {"curator_per_s", median(c.curator.rates)},
          {"ratio", median(c.ratios)},
          {"ratio_range", {*low, *high}},
          {"distlock_client_cpu_us", c.distlock.cpu_per_acquisition(c.distlock.client_cpu)},
          {"curator_client_cpu_us", c.curator.cpu_per_acquisition(c.curator.client_cpu)},
          {"round_trips", per_acquisition(c.counted.round_trips, c.counted)},
          {"notifications", per_acquisition(c.counted.notifications, c.counted)},
          {"goal", {{"ratio_at_least", goal}, {"met", median(c.ratios) >= goal}}}};
}

void write_json(const std::string& path, const Settings& settings, const Comparison& alone,
                const Comparison& queued) {
  const nlohmann::json document = {{"benchmark", "zookeeper"},
                                   {"rounds", settings.rounds},
                                   {"seconds_per_side", settings.seconds},
                                   {"waiters", settings.waiters},
                                   {"uncontended", comparison_json(alone, kUncontendedGoal)},
                                   {"contended", comparison_json(queued, kContendedGoal)}};
  std::ofstream out(path);
  out << document.dump(2) << '\n';
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse_args(argc, argv);
  try {
    distlock::testing::ZooKeeperConfig config;
    config.force_sync = settings.fsync;
    config.max_heap = "1g";
    config.quick_start = false;  // the server compiles its hot paths fully, as in production
    distlock::testing::ZooKeeperServer server(config);
    std::string version = "?";
    if (const auto srvr = server.four_letter("srvr")) {
      const auto at = srvr->find("version: ");
      if (at != std::string::npos)
        version = srvr->substr(at + 9, srvr->find_first_of("-,\r\n", at + 9) - at - 9);
    }
    std::printf(
        "zookeeper_bench: ZooKeeper %s standalone on %s (forceSync=%s), %d round(s) of %.1f s "
        "per side after a %.1f s warm-up, distlock and Curator taking turns\n",
        version.c_str(), server.connect_string().c_str(), settings.fsync ? "yes" : "no",
        settings.rounds, settings.seconds, settings.warmup_seconds);
    std::fflush(stdout);

    const std::string url = server.url();
    DistlockSide uncontended(url, 1);
    DistlockSide contended(url, settings.waiters + 1);
    CuratorSide curator(server, settings);

    std::printf("  uncontended (distlock / Curator per second)\n");
    std::fflush(stdout);
    const Comparison alone = compare(Mode::uncontended, uncontended, curator, server, settings);
    std::printf("  contended, %d waiters (distlock / Curator per second)\n", settings.waiters);
    std::fflush(stdout);
    const Comparison queued = compare(Mode::contended, contended, curator, server, settings);

    std::printf("\n  %-46s %10s %10s %8s %11s\n", "", "distlock", "Curator", "ratio", "range");
    report("uncontended acquire+release per second", alone);
    char label[96];
    std::snprintf(label, sizeof label, "contended handoffs per second (%d waiters)",
                  settings.waiters);
    report(label, queued);
    std::printf("\n");
    report_cpu("client CPU us per uncontended cycle", alone);
    report_cpu("client CPU us per contended handoff", queued);
    std::printf("\n");
    std::printf("  %-46s %10.2f\n", "distlock round trips per uncontended cycle",
                per_acquisition(alone.counted.round_trips, alone.counted));
    std::printf("  %-46s %10.2f\n", "distlock round trips per contended handoff",
                per_acquisition(queued.counted.round_trips, queued.counted));
    std::printf("  %-46s %10.2f\n", "distlock watch notifications per handoff",
                per_acquisition(queued.counted.notifications, queued.counted));
    const bool goals_met =
        median(alone.ratios) >= kUncontendedGoal && median(queued.ratios) >= kContendedGoal;
    std::printf("\n  goals: uncontended >= %.1f x Curator, contended >= %.1f x: %s\n",
                kUncontendedGoal, kContendedGoal, goals_met ? "met" : "NOT met");
    std::fflush(stdout);
    if (!settings.json_path.empty()) write_json(settings.json_path, settings, alone, queued);
    return settings.require_goal && !goals_met ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zookeeper_bench: %s\n", e.what());
    return 1;
  }
}
