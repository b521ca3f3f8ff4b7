// SPDX-License-Identifier: Apache-2.0
// Private ZooKeeper servers for tests and benchmarks, run from Debian's `zookeeper` package
// (java with the jars in /usr/share/java): a standalone server, or a three-server ensemble on
// loopback. Each server gets free loopback ports, a temporary directory with a generated
// zoo.cfg (four-letter words enabled, admin server off, short ticks and session timeouts
// allowed) and its log in <directory>/server.log; all of it goes away with the object.
//
// Readiness is awaited with the `srvr` four-letter word (its "Mode:" line), never by sleeping.
// Servers are killed if the thread that started them exits (PR_SET_PDEATHSIG): start them on a
// thread that outlives them.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distlock::testing {

class Subprocess;
struct ExitStatus;

struct ZooKeeperConfig {
  // zoo.cfg tickTime. The server accepts session timeouts from min to max (the client asks,
  // the server clamps): defaults allow 1 s sessions.
  std::chrono::milliseconds tick{500};
  std::chrono::milliseconds min_session_timeout{1000};
  std::chrono::milliseconds max_session_timeout{60000};
  // forceSync: off by default (no fsync per transaction; committed data still reaches the
  // page cache, so a stopped or killed server restarts with it).
  bool force_sync = false;
  // How often the server removes empty container nodes (znode.container.checkIntervalMs);
  // none: ZooKeeper's default, a minute.
  std::optional<std::chrono::milliseconds> container_check_interval;
  // Maximum heap of the JVM.
  std::string max_heap = "256m";
  // More zoo.cfg lines ("key=value").
  std::vector<std::string> extra_config;
  // Start the JVM in about half the time: the client-tier compiler only, and ZooKeeper's
  // classes mapped from a class-data archive (made by the first server of the build that
  // stops cleanly). It serves sustained load more slowly: benchmarks turn it off.
  bool quick_start = true;
};

// The `java` that runs the servers: $DISTLOCK_JAVA if set, else $JAVA_HOME/bin/java, else
// found on PATH, /usr/local/bin, /usr/bin, /usr/sbin. Empty when missing.
std::filesystem::path java_program();
// Where the ZooKeeper jars are: $DISTLOCK_JAVA_LIBS if set, else /usr/share/java.
std::filesystem::path java_library_directory();
// The class path of the server (zookeeper.jar, whose manifest names its dependencies, and an
// slf4j binding). Throws std::runtime_error naming what is missing.
std::string zookeeper_class_path();

// Sends a four-letter word ("srvr", "ruok", "mntr", "cons", ...) to 127.0.0.1:port and
// returns the whole answer; nullopt when nothing listens or no answer came within `timeout`.
std::optional<std::string> four_letter_word(
    std::uint16_t port, std::string_view word,
    std::chrono::milliseconds timeout = std::chrono::seconds(5));

// One ZooKeeper server process with its configuration and data directory. Used directly for
// a standalone server; ZooKeeperEnsemble holds three.
class ZooKeeperServer {
 public:
  // What a test that cannot start it says it could not start.
  static constexpr std::string_view kName = "ZooKeeper";

  // A standalone server on a free loopback port, started and ready (srvr answers "Mode:
  // standalone"). Throws std::runtime_error when java or the jars are missing or the server
  // does not come up, with the end of its log in the message.
  explicit ZooKeeperServer(ZooKeeperConfig config = {});
  ~ZooKeeperServer();
  ZooKeeperServer(const ZooKeeperServer&) = delete;
  ZooKeeperServer& operator=(const ZooKeeperServer&) = delete;

  std::uint16_t port() const { return port_; }
  // "127.0.0.1:<port>"
  std::string connect_string() const;
  // "zookeeper://127.0.0.1:<port>"
  std::string url() const;
  const std::filesystem::path& directory() const { return directory_; }

  // Stops the server (SIGTERM, SIGKILL after a grace period) and reaps it. The port, the
  // configuration and the data stay, for start(). No-op when not running.
  void stop();
  // Starts it again on the same port with the same data (sessions that have not expired
  // survive a restart), and waits until it serves. Throws like the constructor.
  void start();
  bool running() const;
  // Sends a signal: SIGKILL also reaps the process (running() turns false); SIGSTOP and
  // SIGCONT freeze and resume it.
  void kill(int signal);
  int pid() const;

  // four_letter_word on this server; nullopt when it does not answer within `timeout`.
  std::optional<std::string> four_letter(
      std::string_view word, std::chrono::milliseconds timeout = std::chrono::seconds(2)) const;
  // The "Mode:" of srvr: "standalone", "leader", "follower"; empty when not serving.
  std::string mode(std::chrono::milliseconds timeout = std::chrono::seconds(2)) const;
  // The last `max_bytes` of the server's log.
  std::string log_tail(std::size_t max_bytes = 6000) const;

 private:
  friend class ZooKeeperEnsemble;
  struct Member {};
  // A member of an ensemble: directory, ports and zoo.cfg prepared by the ensemble; not
  // started.
  ZooKeeperServer(Member, std::filesystem::path directory, std::uint16_t port,
                  std::string config_text, ZooKeeperConfig config, int id);

  void launch();
  // After the JVM ended: its class-data archive becomes the build's, when it wrote it whole.
  void publish_class_archive(const ExitStatus& status);
  void discard_class_archive_draft();
  // Waits until srvr reports a serving mode; false when the process exited first (the
  // caller reads the log). Throws on timeout.
  bool await_serving(std::chrono::milliseconds limit);
  void write_config() const;

  ZooKeeperConfig config_;
  std::filesystem::path directory_;
  std::uint16_t port_ = 0;
  std::string config_text_;
  int id_ = 0;  // ensemble member id (myid), 0 for standalone
  bool owns_directory_ = true;
  std::unique_ptr<Subprocess> process_;
  // Where this server's JVM writes the class-data archive as it exits, when there was none
  // at its start; empty otherwise.
  std::filesystem::path archive_draft_;
};

// Three servers on loopback forming one ensemble (QuorumPeerMain), each with its own client,
// quorum and election ports and data directory.
class ZooKeeperEnsemble {
 public:
  static constexpr int kSize = 3;

  // Starts all three and waits until they serve with one leader. Throws like ZooKeeperServer.
  explicit ZooKeeperEnsemble(ZooKeeperConfig config = {});
  ~ZooKeeperEnsemble();
  ZooKeeperEnsemble(const ZooKeeperEnsemble&) = delete;
  ZooKeeperEnsemble& operator=(const ZooKeeperEnsemble&) = delete;

  // "127.0.0.1:<p0>,127.0.0.1:<p1>,127.0.0.1:<p2>"
  std::string connect_string() const;
  // "zookeeper://" + connect_string()
  std::string url() const;
  ZooKeeperServer& server(int index) { return *servers_.at(static_cast<std::size_t>(index)); }

  // The index of the server whose srvr says "Mode: leader", waiting up to `limit` for the
  // running servers to elect one. Throws std::runtime_error when none is elected in time.
  int leader(std::chrono::milliseconds limit = std::chrono::seconds(30)) const;
  // SIGKILLs server `index` (and reaps it).
  void kill(int index);
  // Starts server `index` again with its data and waits until it serves (as leader or
  // follower).
  void restart(int index);
  // Waits until every running server serves and exactly one of them leads.
  void await_quorum(std::chrono::milliseconds limit = std::chrono::seconds(30)) const;

 private:
  std::filesystem::path directory_;
  std::vector<std::unique_ptr<ZooKeeperServer>> servers_;
};

}  // namespace distlock::testing
