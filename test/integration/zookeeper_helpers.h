// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the ZooKeeper suites: a suite-wide server, lock paths, Curator's node
// names, and the Curator driver as a child process.
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

#include "hold_intervals.h"
#include "integration_helpers.h"
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

struct StartSuiteZooKeeper {
  std::unique_ptr<ZooKeeperServer> operator()() const {
    return std::make_unique<ZooKeeperServer>(suite_zookeeper_config());
  }
};

// A ZooKeeper server shared by the tests of one suite (integration_helpers.h).
using SuiteZooKeeper = SuiteService<ZooKeeperServer, StartSuiteZooKeeper>;

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
