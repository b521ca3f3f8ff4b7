// SPDX-License-Identifier: Apache-2.0
#include "etcd_server.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

#include "redis_server.h"  // free_loopback_port
#include "subprocess.h"

namespace distlock::testing {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr auto kStartupDeadline = std::chrono::seconds(30);
constexpr auto kStopGrace = std::chrono::seconds(10);
constexpr auto kEtcdctlDeadline = std::chrono::seconds(30);
// Between two probes while a member starts or a cluster elects, and how long one probe's
// etcdctl may take: a frozen member never answers, and must not hold the poll up for long.
constexpr auto kProbeInterval = milliseconds(20);
constexpr std::string_view kProbeTimeouts[] = {"--dial-timeout=1s", "--command-timeout=1s"};
constexpr int kPortAttempts = 6;
constexpr std::size_t kLogTail = 6000;

constexpr std::string_view kRootPassword = "distlock-test-root";
// etcd logs this once it serves clients, which it does only after it has joined its cluster
// (published itself through raft), so it also says the member found its quorum.
constexpr std::string_view kServingMark = "serving client traffic";
constexpr std::string_view kPortTakenMark = "address already in use";

std::filesystem::path make_temp_directory(const char* prefix) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (std::string(prefix) + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  }
  return pattern;
}

std::string read_from(const std::filesystem::path& path, std::uintmax_t offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::uintmax_t size_or_zero(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

std::string last_bytes(std::string text, std::size_t max_bytes) {
  if (text.size() > max_bytes) text = "..." + text.substr(text.size() - max_bytes);
  return text.empty() ? "(empty log)" : text;
}

std::string without_trailing_newlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

std::filesystem::path program_from(const char* variable, const std::string& name) {
  if (const char* chosen = std::getenv(variable); chosen != nullptr && *chosen != '\0') {
    return find_program(chosen);
  }
  return find_program(name);
}

std::filesystem::path required_program(const char* variable, const std::string& name,
                                       const char* package) {
  auto program = program_from(variable, name);
  if (!program.empty()) return program;
  const char* chosen = std::getenv(variable);
  throw std::runtime_error(
      chosen != nullptr && *chosen != '\0'
          ? std::string(variable) + "=" + chosen + " is not an executable program"
          : name + " not found ($" + variable +
                ", PATH, /usr/local/bin, /usr/bin, /usr/sbin); the tests that need an etcd "
                "server cannot run without it (Debian: apt-get install " +
                package + ")");
}

std::string loopback_url(std::uint16_t port) { return "http://127.0.0.1:" + std::to_string(port); }

std::string client_url(std::uint16_t port, const std::optional<ServerTls>& tls) {
  return (tls ? "https" : "http") + std::string("://127.0.0.1:") + std::to_string(port);
}

// etcdctl's flags for members at `endpoints` ("127.0.0.1:<port>[,...]"); over TLS (one
// member: EtcdCluster has none), the test CA that signed the member's certificate, and the test
// client's certificate, which a member that requires one takes.
std::vector<std::string> connection_flags(const std::string& endpoints,
                                          const std::optional<ServerTls>& tls) {
  if (!tls) return {"--endpoints=" + endpoints};
  const TlsFiles& files = tls_files();
  return {"--endpoints=https://" + endpoints, "--cacert=" + files.ca.string(),
          "--cert=" + files.client.certificate.string(), "--key=" + files.client.key.string()};
}

std::string with_credentials(const std::optional<EtcdCredentials>& credentials,
                             const std::string& scheme, const std::string& hosts) {
  if (!credentials) return scheme + "://" + hosts;
  return scheme + "://" + credentials->user + ":" + credentials->password + "@" + hosts;
}

// `count` loopback ports nobody listens on right now, all different.
std::vector<std::uint16_t> free_loopback_ports(std::size_t count) {
  std::set<std::uint16_t> chosen;
  std::vector<std::uint16_t> ports;
  while (ports.size() < count) {
    const auto port = free_loopback_port();
    if (chosen.insert(port).second) ports.push_back(port);
  }
  return ports;
}

struct EtcdctlResult {
  ExitStatus status;
  std::string output;
  std::string errors;
};

// Runs etcdctl with API v3 (whatever ETCDCTL_API the test has) with `connection`
// (connection_flags()), its stderr in a file of `scratch` that is read and removed afterwards.
EtcdctlResult run_etcdctl(const std::filesystem::path& scratch,
                          const std::vector<std::string>& connection,
                          const std::optional<EtcdCredentials>& credentials,
                          const std::vector<std::string>& args) {
  const auto program = required_program("DISTLOCK_ETCDCTL", "etcdctl", "etcd-client");
  std::string error_file = (scratch / "etcdctl-stderr-XXXXXX").string();
  const int fd = ::mkstemp(error_file.data());
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "mkstemp " + error_file);
  ::close(fd);
  struct Remover {
    std::filesystem::path path;
    ~Remover() {
      std::error_code ec;
      std::filesystem::remove(path, ec);
    }
  } remover{error_file};

  std::vector<std::string> argv = connection;
  if (credentials) argv.push_back("--user=" + credentials->user + ":" + credentials->password);
  argv.insert(argv.end(), args.begin(), args.end());
  Subprocess::Options options;
  options.error_file = error_file;
  options.environment = {"ETCDCTL_API=3"};
  Subprocess process(program, argv, options);
  EtcdctlResult result;
  result.output = process.read_all(kEtcdctlDeadline);
  result.status = process.wait(kEtcdctlDeadline);
  result.errors = read_from(error_file, 0);
  return result;
}

std::string output_or_throw(EtcdctlResult result, const std::string& where,
                            const std::vector<std::string>& args) {
  if (result.status.success()) return without_trailing_newlines(std::move(result.output));
  std::string command;
  for (const auto& arg : args) command += " " + arg;
  throw std::runtime_error("etcdctl" + command + " against " + where + " failed (" +
                           result.status.describe() +
                           "): " + last_bytes(without_trailing_newlines(result.errors), kLogTail));
}

// Adds root with kRootPassword and turns authentication on.
EtcdCredentials enable_authentication(const std::filesystem::path& scratch,
                                      const std::string& endpoints,
                                      const std::optional<ServerTls>& tls) {
  EtcdCredentials root{"root", std::string(kRootPassword)};
  // etcdctl's auth enable also gives root the root role, without which etcd refuses it.
  for (const auto& args : {std::vector<std::string>{"user", "add", root.user + ":" + root.password},
                           std::vector<std::string>{"auth", "enable"}}) {
    output_or_throw(run_etcdctl(scratch, connection_flags(endpoints, tls), std::nullopt, args),
                    endpoints, args);
  }
  return root;
}

// The unsigned number after "key": in etcdctl's JSON (member and leader ids use all 64 bits,
// more than a double holds, so no JSON library that reads numbers as doubles would do).
std::optional<std::uint64_t> json_number(const std::string& json, std::string_view key) {
  const std::string quoted = "\"" + std::string(key) + "\":";
  const auto at = json.find(quoted);
  if (at == std::string::npos) return std::nullopt;
  const auto begin = at + quoted.size();
  const auto end = json.find_first_not_of("0123456789", begin);
  if (end == begin) return std::nullopt;
  return std::stoull(json.substr(begin, end - begin));
}

}  // namespace

std::filesystem::path etcd_executable() { return program_from("DISTLOCK_ETCD", "etcd"); }

std::filesystem::path etcdctl_executable() { return program_from("DISTLOCK_ETCDCTL", "etcdctl"); }

// ---------------------------------------------------------------------------------------------
// EtcdServer

EtcdServer::EtcdServer(EtcdConfig config) : config_(std::move(config)), name_("distlock") {
  directory_ = make_temp_directory("distlock-etcd");
  // Unique to this server, so that a member of another test's cluster that finds its port
  // refuses it (a different cluster id) instead of joining.
  cluster_token_ = directory_.filename().string();
  try {
    std::string failures;
    for (int attempt = 1; attempt <= kPortAttempts; ++attempt) {
      const auto ports = free_loopback_ports(2);
      port_ = ports[0];
      peer_port_ = ports[1];
      initial_cluster_ = name_ + "=" + loopback_url(peer_port_);
      const auto deadline = Clock::now() + kStartupDeadline;
      launch();
      if (await_serving(deadline) == Launch::serving) {
        await_healthy(deadline);
        if (config_.authentication)
          credentials_ = enable_authentication(directory_, endpoint(), config_.tls);
        return;
      }
      failures += "ports " + std::to_string(port_) + ", " + std::to_string(peer_port_) + ":\n" +
                  log_since_launch() + "\n";
      // etcd binds its ports before it writes any data; removed in case a later version does
      // not, as the next attempt's member has other peer URLs.
      std::filesystem::remove_all(directory_ / "data");
    }
    throw std::runtime_error("etcd could not bind loopback ports in " +
                             std::to_string(kPortAttempts) + " attempts:\n" + failures);
  } catch (...) {
    process_.reset();
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
    throw;
  }
}

EtcdServer::EtcdServer(Member, EtcdConfig config, std::filesystem::path directory, std::string name,
                       std::uint16_t port, std::uint16_t peer_port, std::string initial_cluster,
                       std::string cluster_token)
    : config_(std::move(config)),
      directory_(std::move(directory)),
      name_(std::move(name)),
      port_(port),
      peer_port_(peer_port),
      initial_cluster_(std::move(initial_cluster)),
      cluster_token_(std::move(cluster_token)),
      owns_directory_(false) {
  std::filesystem::create_directories(directory_);
}

EtcdServer::~EtcdServer() {
  // SIGKILL (Subprocess's destructor): the data goes with the directory.
  process_.reset();
  if (owns_directory_) {
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
  }
}

void EtcdServer::launch() {
  const auto program = required_program("DISTLOCK_ETCD", "etcd", "etcd-server");
  const auto log_file = directory_ / "server.log";
  launch_log_offset_ = size_or_zero(log_file);
  std::vector<std::string> args = {
      "--name=" + name_,
      "--data-dir=" + (directory_ / "data").string(),
      "--listen-client-urls=" + client_url(port_, config_.tls),
      "--advertise-client-urls=" + client_url(port_, config_.tls),
      "--listen-peer-urls=" + loopback_url(peer_port_),
      "--initial-advertise-peer-urls=" + loopback_url(peer_port_),
      // The initial flags make the cluster; a restart finds it in the data and ignores them.
      "--initial-cluster=" + initial_cluster_,
      "--initial-cluster-token=" + cluster_token_,
      "--initial-cluster-state=new",
      "--heartbeat-interval=" + std::to_string(config_.heartbeat_interval.count()),
      "--election-timeout=" + std::to_string(config_.election_timeout.count()),
      // bcrypt's cheapest cost: each authentication takes about 1 ms instead of 50.
      "--bcrypt-cost=4",
      // Its log and whatever the Go runtime prints (a panic) go to server.log, through stderr.
      "--logger=zap",
      "--log-outputs=stderr",
  };
  if (config_.tls) {
    args.push_back("--cert-file=" + config_.tls->identity.certificate.string());
    args.push_back("--key-file=" + config_.tls->identity.key.string());
    if (config_.tls->client_certificates_required) {
      args.push_back("--client-cert-auth");
      args.push_back("--trusted-ca-file=" + config_.tls->ca.string());
    }
  }
  args.insert(args.end(), config_.extra_args.begin(), config_.extra_args.end());
  Subprocess::Options options;
  options.merge_stderr = true;
  options.output_file = log_file;
  process_ = std::make_unique<Subprocess>(program, args, options);
}

std::optional<EtcdServer::Launch> EtcdServer::launch_outcome() {
  // Read before the exit check: a member that served and then exited is not taken as
  // serving, and one that exited has written all it will. All of it: a member of a cluster may
  // log much after the mark before the next poll.
  const std::string log = read_from(directory_ / "server.log", launch_log_offset_);
  if (const auto status = process_->try_wait()) {
    process_.reset();
    if (log.find(kPortTakenMark) != std::string::npos) return Launch::port_taken;
    throw std::runtime_error("etcd " + name_ + " on port " + std::to_string(port_) + " exited (" +
                             status->describe() + ") before it served; the end of its log:\n" +
                             last_bytes(log, kLogTail));
  }
  if (log.find(kServingMark) != std::string::npos) return Launch::serving;
  return std::nullopt;
}

EtcdServer::Launch EtcdServer::await_serving(Clock::time_point deadline) {
  for (;;) {
    if (const auto outcome = launch_outcome()) return *outcome;
    if (Clock::now() >= deadline) {
      throw std::runtime_error("etcd " + name_ + " on port " + std::to_string(port_) +
                               " did not serve within " + std::to_string(kStartupDeadline.count()) +
                               " s; the end of its log:\n" + log_since_launch());
    }
    std::this_thread::sleep_for(kProbeInterval);
  }
}

void EtcdServer::await_healthy(Clock::time_point deadline) const {
  std::vector<std::string> args(std::begin(kProbeTimeouts), std::end(kProbeTimeouts));
  args.insert(args.end(), {"endpoint", "health"});
  for (;;) {
    if (const auto status = process_->try_wait()) {
      throw std::runtime_error(
          "etcd " + name_ + " on port " + std::to_string(port_) + " exited (" + status->describe() +
          ") before it was healthy; the end of its log:\n" + log_since_launch());
    }
    const auto health =
        run_etcdctl(directory_, connection_flags(endpoint(), config_.tls), credentials_, args);
    if (health.status.success()) return;
    if (Clock::now() >= deadline) {
      throw std::runtime_error("etcd " + name_ + " on port " + std::to_string(port_) +
                               " was not healthy within " +
                               std::to_string(kStartupDeadline.count()) +
                               " s; etcdctl: " + without_trailing_newlines(health.errors) +
                               "\nthe end of its log:\n" + log_since_launch());
    }
    std::this_thread::sleep_for(kProbeInterval);
  }
}

std::string EtcdServer::endpoint() const { return "127.0.0.1:" + std::to_string(port_); }

std::string EtcdServer::url() const { return scheme() + "://" + endpoint(); }

std::string EtcdServer::url_with_credentials() const {
  return with_credentials(credentials_, scheme(), endpoint());
}

std::string EtcdServer::scheme() const { return config_.tls ? "etcds" : "etcd"; }

int EtcdServer::pid() const { return process_ ? process_->pid() : -1; }

bool EtcdServer::running() const { return process_ && !process_->try_wait(); }

void EtcdServer::stop() {
  if (!process_) return;
  process_->kill(SIGCONT);  // a frozen member handles no SIGTERM
  process_->terminate(kStopGrace);
  process_.reset();
}

void EtcdServer::restart() {
  stop();
  const auto deadline = Clock::now() + kStartupDeadline;
  launch();
  if (await_serving(deadline) == Launch::port_taken) {
    throw std::runtime_error("etcd " + name_ + " cannot restart on ports " + std::to_string(port_) +
                             ", " + std::to_string(peer_port_) +
                             ": another process bound one while it was stopped; the end of its "
                             "log:\n" +
                             log_since_launch());
  }
  await_healthy(deadline);
}

void EtcdServer::kill() { process_.reset(); }

void EtcdServer::freeze() {
  if (process_) process_->kill(SIGSTOP);
}

void EtcdServer::thaw() {
  if (process_) process_->kill(SIGCONT);
}

std::string EtcdServer::etcdctl(const std::vector<std::string>& args) const {
  return output_or_throw(
      run_etcdctl(directory_, connection_flags(endpoint(), config_.tls), credentials_, args),
      "etcd " + name_ + " on port " + std::to_string(port_), args);
}

std::unique_ptr<Subprocess> EtcdServer::start_etcdctl(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = connection_flags(endpoint(), config_.tls);
  if (credentials_) argv.push_back("--user=" + credentials_->user + ":" + credentials_->password);
  argv.insert(argv.end(), args.begin(), args.end());
  Subprocess::Options options;
  options.environment = {"ETCDCTL_API=3"};
  return std::make_unique<Subprocess>(
      required_program("DISTLOCK_ETCDCTL", "etcdctl", "etcd-client"), argv, options);
}

std::string EtcdServer::log_tail(std::size_t max_bytes) const {
  return last_bytes(read_from(directory_ / "server.log", 0), max_bytes);
}

std::string EtcdServer::log_since_launch() const {
  return last_bytes(read_from(directory_ / "server.log", launch_log_offset_), kLogTail);
}

// ---------------------------------------------------------------------------------------------
// EtcdCluster

EtcdCluster::EtcdCluster(const EtcdConfig& config) {
  // Its etcdctl calls (leader_index(), authentication) speak to the members in the clear.
  if (config.tls)
    throw std::invalid_argument(
        "EtcdCluster serves clients in the clear only: TLS is for "
        "an EtcdServer (one member)");
  directory_ = make_temp_directory("distlock-etcd-cluster");
  try {
    std::string failures;
    for (int attempt = 1; attempt <= kPortAttempts; ++attempt) {
      constexpr auto size = static_cast<std::size_t>(kSize);
      // The client ports first, then the peer ports.
      const auto ports = free_loopback_ports(2 * size);
      auto name = [](std::size_t index) { return "member-" + std::to_string(index); };
      std::string initial_cluster;
      for (std::size_t i = 0; i < size; ++i) {
        initial_cluster += (i == 0 ? "" : ",") + name(i) + "=" + loopback_url(ports[size + i]);
      }
      // A directory per attempt: the members of an attempt that failed may have written data
      // naming their peers.
      const auto round = directory_ / ("attempt-" + std::to_string(attempt));
      members_.clear();
      for (std::size_t i = 0; i < size; ++i) {
        members_.push_back(std::unique_ptr<EtcdServer>(new EtcdServer(
            EtcdServer::Member{}, config, round / name(i), name(i), ports[i], ports[size + i],
            initial_cluster, directory_.filename().string() + "-" + std::to_string(attempt))));
      }
      // All three start before any is awaited: none serves before it has a quorum.
      for (auto& member : members_) member->launch();
      const auto deadline = Clock::now() + kStartupDeadline;
      const bool port_taken = await_members_serving(deadline);
      if (!port_taken) {
        for (auto& member : members_) member->await_healthy(deadline);
        leader_index();
        if (config.authentication) {
          const auto credentials = enable_authentication(directory_, endpoints(), std::nullopt);
          for (auto& member : members_) member->credentials_ = credentials;
        }
        return;
      }
      for (auto& member : members_) {
        failures += "--- " + member->name() + " on ports " + std::to_string(member->port()) + ", " +
                    std::to_string(member->peer_port()) + ":\n" + member->log_tail(2000) + "\n";
      }
      members_.clear();
    }
    throw std::runtime_error("the etcd cluster could not bind loopback ports in " +
                             std::to_string(kPortAttempts) + " attempts:\n" + failures);
  } catch (...) {
    members_.clear();
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
    throw;
  }
}

bool EtcdCluster::await_members_serving(Clock::time_point deadline) {
  std::vector<bool> serving(members_.size(), false);
  for (;;) {
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (serving[i]) continue;
      const auto outcome = members_[i]->launch_outcome();
      // The others of a member that could not bind its ports would wait for it in vain.
      if (outcome == EtcdServer::Launch::port_taken) return true;
      serving[i] = outcome == EtcdServer::Launch::serving;
    }
    if (std::all_of(serving.begin(), serving.end(), [](bool yes) { return yes; })) return false;
    if (Clock::now() >= deadline) {
      std::string logs;
      for (const auto& member : members_) {
        logs += "--- " + member->name() + " on port " + std::to_string(member->port()) + ":\n" +
                member->log_tail(2000) + "\n";
      }
      throw std::runtime_error("the etcd cluster's members did not all serve within " +
                               std::to_string(kStartupDeadline.count()) + " s:\n" + logs);
    }
    std::this_thread::sleep_for(kProbeInterval);
  }
}

EtcdCluster::~EtcdCluster() {
  members_.clear();
  std::error_code ec;
  std::filesystem::remove_all(directory_, ec);
}

std::string EtcdCluster::endpoints() const {
  std::string text;
  for (const auto& member : members_) text += (text.empty() ? "" : ",") + member->endpoint();
  return text;
}

std::string EtcdCluster::url() const { return "etcd://" + endpoints(); }

std::string EtcdCluster::url_with_credentials() const {
  return with_credentials(members_.front()->credentials(), "etcd", endpoints());
}

int EtcdCluster::leader_index(std::chrono::milliseconds limit) const {
  const auto deadline = Clock::now() + limit;
  std::vector<std::string> args(std::begin(kProbeTimeouts), std::end(kProbeTimeouts));
  args.insert(args.end(), {"endpoint", "status", "-w", "json"});
  for (;;) {
    // Each member asked on its own: etcdctl gives up on the other endpoints of a command after
    // the first that does not answer. No credentials: a status needs none, and authenticating
    // needs a leader.
    struct Answer {
      int index;
      std::uint64_t id;
      std::uint64_t leader;
    };
    std::vector<Answer> answers;
    for (int i = 0; i < kSize; ++i) {
      const auto& member = *members_[static_cast<std::size_t>(i)];
      if (!member.running()) continue;
      const auto status = run_etcdctl(directory_, connection_flags(member.endpoint(), std::nullopt),
                                      std::nullopt, args);
      if (!status.status.success()) continue;
      const auto id = json_number(status.output, "member_id");
      const auto leader = json_number(status.output, "leader");
      if (id && leader && *leader != 0) answers.push_back({i, *id, *leader});
    }
    const bool majority = answers.size() > kSize / 2;
    const bool agreed =
        majority && std::all_of(answers.begin(), answers.end(), [&](const Answer& answer) {
          return answer.leader == answers.front().leader;
        });
    if (agreed) {
      for (const auto& answer : answers) {
        if (answer.id == answer.leader) return answer.index;
      }
    }
    if (Clock::now() >= deadline) {
      std::string logs;
      for (const auto& member : members_) {
        logs += "--- " + member->name() + " on port " + std::to_string(member->port()) + " (" +
                (member->running() ? "running" : "stopped") + "):\n" + member->log_tail(2000) +
                "\n";
      }
      throw std::runtime_error("the etcd cluster agreed on no leader within " +
                               std::to_string(limit.count()) + " ms:\n" + logs);
    }
    std::this_thread::sleep_for(kProbeInterval);
  }
}

std::string EtcdCluster::etcdctl(const std::vector<std::string>& args) const {
  return output_or_throw(run_etcdctl(directory_, connection_flags(endpoints(), std::nullopt),
                                     members_.front()->credentials(), args),
                         "the etcd cluster " + endpoints(), args);
}

}  // namespace distlock::testing
