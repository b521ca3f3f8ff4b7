// Helpers shared by the ZooKeeper suites: a suite-wide server, lock paths, Curator's node
// names, hold intervals, and the Curator driver as a child process.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "subprocess.h"
#include "zookeeper_server.h"

namespace distlock::testing {

// The session timeout the ZooKeeper suites ask for: short, so that a dead holder's lock comes
// free quickly, and well above the tick (500 ms) and the watchdog tests' 1 s ttl.
inline constexpr std::chrono::milliseconds kZooKeeperSession{4000};

// The server's settings for the suites: 500 ms ticks, sessions from 1 s, and empty container
// nodes removed within a second (as a busy production server would, eventually: lock nodes
// may vanish between a contender's creates).
inline ZooKeeperConfig suite_zookeeper_config() {
  ZooKeeperConfig config;
  config.container_check_interval = std::chrono::milliseconds(1000);
  return config;
}

// "<url>?session_timeout=4s"
inline std::string with_session_timeout(const std::string& url,
                                        std::chrono::milliseconds timeout = kZooKeeperSession) {
  return url + (url.find('?') == std::string::npos ? "?" : "&") +
         "session_timeout=" + std::to_string(timeout.count()) + "ms";
}

// A ZooKeeper server shared by the tests of one suite: started by the first test that needs
// it, stopped by the suite's TearDownTestSuite. A server that failed to start fails every
// test that asks for it, with the same message.
class SuiteZooKeeper {
 public:
  ZooKeeperServer& get() {
    if (!server_) {
      if (!error_.empty()) throw std::runtime_error(error_);
      try {
        server_ = std::make_unique<ZooKeeperServer>(suite_zookeeper_config());
      } catch (const std::exception& e) {
        error_ = e.what();
        throw;
      }
    }
    return *server_;
  }
  void stop() {
    server_.reset();
    error_.clear();
  }

 private:
  std::unique_ptr<ZooKeeperServer> server_;
  std::string error_;
};

// The lock node of lock type `type` and a one-part key, as the backend and Curator name it.
inline std::string zk_lock_path(std::string_view type, std::string_view key = {}) {
  std::string path = "/distlock/" + std::string(type);
  if (!key.empty()) path += "/" + std::string(key);
  return path;
}

// Curator's protected node names: "_c_" + a 36-character UUID + "-" + the lock's marker + a
// 10-digit sequence number.
inline bool is_curator_node(const std::string& name, std::string_view marker) {
  static const std::string uuid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
  const std::regex pattern("^_c_" + uuid + "-" + std::string(marker) + "[0-9]{10}$");
  return std::regex_match(name, pattern);
}
inline bool is_mutex_node(const std::string& name) { return is_curator_node(name, "lock-"); }
inline bool is_read_node(const std::string& name) { return is_curator_node(name, "__READ__"); }
inline bool is_write_node(const std::string& name) { return is_curator_node(name, "__WRIT__"); }
// The 36-character UUID of a protected node name.
inline std::string node_uuid(const std::string& name) { return name.substr(3, 36); }

// One hold, as rw_worker and CuratorContender record it: "R" (read), "W" (write or exclusive)
// or "P" (a semaphore's permit).
struct HoldInterval {
  bool write = false;
  std::int64_t start = 0;  // steady_clock / System.nanoTime() nanoseconds
  std::int64_t end = 0;
  std::string who;
};

inline std::vector<HoldInterval> read_intervals(const std::string& path) {
  std::vector<HoldInterval> result;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind;
    HoldInterval interval;
    if (!(fields >> kind >> interval.start >> interval.end >> interval.who) ||
        (kind != "R" && kind != "W" && kind != "P")) {
      throw std::runtime_error("malformed interval line in " + path + ": \"" + line + "\"");
    }
    interval.write = kind == "W";
    result.push_back(interval);
  }
  return result;
}

// Pairs of holds that overlapped although one of them was a write (exclusive) hold, as text;
// empty when there are none.
inline std::string write_overlaps(std::vector<HoldInterval> holds, int max_reported = 5) {
  std::sort(holds.begin(), holds.end(),
            [](const HoldInterval& a, const HoldInterval& b) { return a.start < b.start; });
  std::string report;
  int reported = 0;
  for (std::size_t i = 0; i < holds.size(); ++i) {
    for (std::size_t j = i + 1; j < holds.size() && holds[j].start < holds[i].end; ++j) {
      if (!holds[i].write && !holds[j].write) continue;
      if (++reported > max_reported) continue;
      report += std::string(holds[i].write ? "W " : "R ") + holds[i].who + " [" +
                std::to_string(holds[i].start) + ", " + std::to_string(holds[i].end) + ") and " +
                (holds[j].write ? "W " : "R ") + holds[j].who + " [" +
                std::to_string(holds[j].start) + ", " + std::to_string(holds[j].end) + ")\n";
    }
  }
  if (reported > max_reported) {
    report += "... " + std::to_string(reported - max_reported) + " more\n";
  }
  return report;
}

// Pairs of read holds that overlapped: readers did share the lock.
inline int read_overlaps(std::vector<HoldInterval> holds) {
  std::sort(holds.begin(), holds.end(),
            [](const HoldInterval& a, const HoldInterval& b) { return a.start < b.start; });
  int count = 0;
  for (std::size_t i = 0; i < holds.size(); ++i) {
    for (std::size_t j = i + 1; j < holds.size() && holds[j].start < holds[i].end; ++j) {
      if (!holds[i].write && !holds[j].write) ++count;
    }
  }
  return count;
}

// The most holds that overlapped at one time (a hold ending as another starts does not count).
inline int most_at_once(const std::vector<HoldInterval>& holds) {
  std::vector<std::pair<std::int64_t, int>> events;  // (time, +1 start / -1 end); ends first
  for (const auto& hold : holds) {
    events.emplace_back(hold.start, 1);
    events.emplace_back(hold.end, -1);
  }
  std::sort(events.begin(), events.end());
  int now = 0;
  int most = 0;
  for (const auto& event : events) most = std::max(most, now += event.second);
  return most;
}

#ifdef DISTLOCK_CURATOR_CONTENDER_CLASSPATH
// CuratorContender (test/interop) as a child process: `java -cp <its class path>
// CuratorContender args...`. Throws std::runtime_error when java is missing.
inline std::unique_ptr<Subprocess> start_curator(const std::vector<std::string>& args) {
  const auto java = java_program();
  if (java.empty()) {
    throw std::runtime_error(
        "java not found ($DISTLOCK_JAVA, $JAVA_HOME/bin, PATH): the Curator interop tests "
        "cannot run without it (Debian: apt-get install default-jre-headless)");
  }
  std::vector<std::string> argv = {"-Xmx128m",
                                   "-XX:+UseSerialGC",
                                   "-XX:TieredStopAtLevel=1",
                                   "-cp",
                                   DISTLOCK_CURATOR_CONTENDER_CLASSPATH,
                                   "CuratorContender"};
  argv.insert(argv.end(), args.begin(), args.end());
  return std::make_unique<Subprocess>(java, argv);
}
#endif

}  // namespace distlock::testing
