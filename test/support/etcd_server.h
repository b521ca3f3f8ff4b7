// SPDX-License-Identifier: Apache-2.0
// Private etcd servers for tests and benchmarks, run from Debian's etcd-server package (etcd
// 3.4), with etcdctl from etcd-client as their client: one member, or a three-member cluster on
// loopback. Each member gets free loopback client and peer ports, a data directory in a
// temporary directory and its log (zap, JSON lines) in <directory>/server.log; all of it goes
// away with the object. Nothing here links an etcd client library: etcdctl runs as a child.
//
// Readiness is awaited by polling (the member's log saying it serves clients, then etcdctl
// endpoint health), never by sleeping. Servers are killed if the thread that started them exits
// (PR_SET_PDEATHSIG): start them on a thread that outlives them.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tls_files.h"

namespace distlock::testing {

class Subprocess;

// The user and password of a server started with authentication.
struct EtcdCredentials {
  std::string user;
  std::string password;
};

struct EtcdConfig {
  // Raft's heartbeat and election timeout: half of etcd's defaults (100 ms, 1 s), so that a
  // cluster elects a new leader within about a second of losing one, yet still ten heartbeats
  // per election timeout, so that a member slowed by a busy machine is not voted out. The
  // shortest lease etcd grants is 1.5 election timeouts rounded up to whole seconds: 1 s here
  // (2 s with the defaults).
  std::chrono::milliseconds heartbeat_interval{50};
  std::chrono::milliseconds election_timeout{500};
  // Authentication enabled once the member (or cluster) first serves: a user root with the
  // password of credentials(), which etcdctl() then authenticates as.
  bool authentication = false;
  // Clients served over TLS only (https://, etcd's --cert-file and --key-file), and with
  // client_certificates_required, only those with a certificate of tls->ca (--client-cert-auth,
  // --trusted-ca-file). etcdctl() then connects with the test CA and the test client's
  // certificate (tls_files()). For an EtcdServer only; the peers speak in the clear.
  std::optional<ServerTls> tls;
  // More etcd command-line arguments ("--name=value").
  std::vector<std::string> extra_args;
};

// The programs: $DISTLOCK_ETCD or $DISTLOCK_ETCDCTL when set, else found on PATH,
// /usr/local/bin, /usr/bin, /usr/sbin. Empty when missing.
std::filesystem::path etcd_executable();
std::filesystem::path etcdctl_executable();

// One etcd member. Used directly for a one-member cluster; EtcdCluster holds three.
class EtcdServer {
 public:
  // What a test that cannot start it says it could not start.
  static constexpr std::string_view kName = "etcd";

  // A one-member cluster on free loopback ports, started and ready (it serves a linearizable
  // read), with authentication enabled if the configuration asks. Throws std::runtime_error
  // naming what failed, with the end of its log. Ports that turn out to be taken (another
  // process bound one meanwhile) are retried with others.
  explicit EtcdServer(EtcdConfig config = {});
  // Kills the member and removes its directory (a member of an EtcdCluster: the cluster's).
  ~EtcdServer();
  EtcdServer(const EtcdServer&) = delete;
  EtcdServer& operator=(const EtcdServer&) = delete;

  // The client port, and the peer port the members of a cluster talk to each other on.
  std::uint16_t port() const { return port_; }
  std::uint16_t peer_port() const { return peer_port_; }
  // "127.0.0.1:<port>"
  std::string endpoint() const;
  // "etcd://127.0.0.1:<port>" ("etcds://" with TLS), without credentials or query.
  std::string url() const;
  // "etcd://root:<password>@127.0.0.1:<port>" with authentication, else url().
  std::string url_with_credentials() const;
  // "etcds" with TLS, else "etcd".
  std::string scheme() const;
  // Set when the server was started with authentication.
  const std::optional<EtcdCredentials>& credentials() const { return credentials_; }
  const std::string& name() const { return name_; }
  const std::filesystem::path& directory() const { return directory_; }
  // The process id of etcd; -1 while stopped.
  int pid() const;
  bool running() const;

  // Stops the member (SIGTERM: a leader hands its leadership over first) and reaps it; a frozen
  // member too. The ports and the data stay, for restart(). No-op when stopped.
  void stop();
  // stop() if running, then starts it again on the same ports with the same data, and waits
  // until it serves (for a cluster's member: until it serves with a leader). Throws like the
  // constructor, and when another process took one of its ports while it was stopped.
  void restart();
  // SIGKILL, and reaps it: the data stays, as after a crash.
  void kill();
  // SIGSTOP and SIGCONT: a frozen member answers nothing and sends no heartbeat.
  void freeze();
  void thaw();

  // Runs etcdctl (API v3) against this member, as root when the server has authentication;
  // returns its stdout without the trailing newlines. Throws std::runtime_error with its stderr
  // when it fails.
  std::string etcdctl(const std::vector<std::string>& args) const;
  // Starts etcdctl the same way and leaves it running, its stdout on the Subprocess's pipe: for
  // commands that last (etcdctl lock, watch).
  std::unique_ptr<Subprocess> start_etcdctl(const std::vector<std::string>& args) const;
  // The last `max_bytes` of the server's log.
  std::string log_tail(std::size_t max_bytes = 6000) const;

 private:
  friend class EtcdCluster;
  enum class Launch { serving, port_taken };
  struct Member {};
  // A member of a cluster whose directory, ports and initial cluster the cluster chose; not
  // started.
  EtcdServer(Member, EtcdConfig config, std::filesystem::path directory, std::string name,
             std::uint16_t port, std::uint16_t peer_port, std::string initial_cluster,
             std::string cluster_token);

  // Starts etcd with this member's flags; returns at once.
  void launch();
  // Whether the launched member logged that it serves (it has bound its ports and joined its
  // cluster), or exited because a port was in use; nullopt while it starts. Throws when it
  // exited for another reason.
  std::optional<Launch> launch_outcome();
  // Polls launch_outcome() until it has one; throws at the deadline.
  Launch await_serving(std::chrono::steady_clock::time_point deadline);
  // Waits until etcdctl endpoint health succeeds (a read through the leader). Throws when the
  // process exits first or at the deadline.
  void await_healthy(std::chrono::steady_clock::time_point deadline) const;
  // The end of what the running (or last) process logged.
  std::string log_since_launch() const;

  EtcdConfig config_;
  std::filesystem::path directory_;
  std::string name_;
  std::uint16_t port_ = 0;
  std::uint16_t peer_port_ = 0;
  std::string initial_cluster_;
  std::string cluster_token_;
  bool owns_directory_ = true;
  std::optional<EtcdCredentials> credentials_;
  // Where server.log ended when the running (or last) process started.
  std::uintmax_t launch_log_offset_ = 0;
  std::unique_ptr<Subprocess> process_;
};

// Three members on loopback forming one cluster, each with its own ports and data directory.
class EtcdCluster {
 public:
  static constexpr int kSize = 3;

  // Starts the three members and waits until each serves and they agree on a leader, then
  // enables authentication if the configuration asks. Throws like EtcdServer, and
  // std::invalid_argument for a configuration with tls.
  explicit EtcdCluster(const EtcdConfig& config = {});
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  // "127.0.0.1:<a>,127.0.0.1:<b>,127.0.0.1:<c>"
  std::string endpoints() const;
  // "etcd://" + endpoints()
  std::string url() const;
  // "etcd://root:<password>@" + endpoints() with authentication, else url().
  std::string url_with_credentials() const;
  EtcdServer& member(int index) { return *members_.at(static_cast<std::size_t>(index)); }
  const EtcdServer& member(int index) const {
    return *members_.at(static_cast<std::size_t>(index));
  }

  // The index of the leader, waiting up to `limit` until a majority of the members answer and
  // every member that answers names the same leader, one of them that calls itself leader. A
  // leader that was killed, stopped or frozen is no longer named once the others elected a new
  // one: this is how a test waits for that election. Throws std::runtime_error with the
  // members' logs when there is none in time.
  int leader_index(std::chrono::milliseconds limit = std::chrono::seconds(30)) const;
  // etcdctl against every member's endpoint, as EtcdServer::etcdctl.
  std::string etcdctl(const std::vector<std::string>& args) const;

 private:
  // Polls the launched members until all serve (false) or one could not bind its ports (true).
  // Throws when one exited for another reason, or at the deadline.
  bool await_members_serving(std::chrono::steady_clock::time_point deadline);

  std::filesystem::path directory_;
  std::vector<std::unique_ptr<EtcdServer>> members_;
};

}  // namespace distlock::testing
