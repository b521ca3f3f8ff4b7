// SPDX-License-Identifier: Apache-2.0
#include "zookeeper_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "redis_server.h"  // free_loopback_port
#include "subprocess.h"

namespace distlock::testing {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr auto kStartupDeadline = std::chrono::seconds(60);
constexpr auto kStopGrace = std::chrono::seconds(10);
constexpr int kPortAttempts = 6;
// Between two srvr probes while a server starts or elects a leader, and how long one probe
// waits: a server that is still starting may accept the connection and never answer (its
// command fails on a database not loaded yet), so a probe must not wait long.
constexpr auto kProbeInterval = milliseconds(20);
constexpr auto kProbeTimeout = milliseconds(300);

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

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

bool bind_failed(const std::string& log) {
  return log.find("Address already in use") != std::string::npos ||
         log.find("BindException") != std::string::npos;
}

std::string mode_of(const std::optional<std::string>& srvr) {
  if (!srvr) return {};
  const auto at = srvr->find("Mode: ");
  if (at == std::string::npos) return {};
  const auto end = srvr->find_first_of("\r\n", at);
  return srvr->substr(at + 6, end == std::string::npos ? std::string::npos : end - at - 6);
}

std::string common_config(const ZooKeeperConfig& config, const std::filesystem::path& data,
                          std::uint16_t port) {
  std::ostringstream text;
  text << "tickTime=" << config.tick.count() << "\n"
       << "dataDir=" << data.string() << "\n"
       << "clientPort=" << port << "\n"
       << "clientPortAddress=127.0.0.1\n"
       << "minSessionTimeout=" << config.min_session_timeout.count() << "\n"
       << "maxSessionTimeout=" << config.max_session_timeout.count() << "\n"
       << "admin.enableServer=false\n"
       << "4lw.commands.whitelist=*\n"
       << "forceSync=" << (config.force_sync ? "yes" : "no") << "\n"
       << "maxClientCnxns=0\n"
       << "autopurge.purgeInterval=0\n";
  for (const auto& line : config.extra_config) text << line << "\n";
  return text.str();
}

}  // namespace

std::filesystem::path java_program() {
  if (const char* chosen = std::getenv("DISTLOCK_JAVA"); chosen != nullptr && *chosen != '\0') {
    return find_program(chosen);
  }
  if (const char* home = std::getenv("JAVA_HOME"); home != nullptr && *home != '\0') {
    auto candidate = find_program((std::filesystem::path(home) / "bin" / "java").string());
    if (!candidate.empty()) return candidate;
  }
  return find_program("java");
}

std::filesystem::path java_library_directory() {
  if (const char* chosen = std::getenv("DISTLOCK_JAVA_LIBS");
      chosen != nullptr && *chosen != '\0') {
    return chosen;
  }
  return "/usr/share/java";
}

std::string zookeeper_class_path() {
  const auto dir = java_library_directory();
  std::string path;
  std::string missing;
  for (const char* jar : {"zookeeper.jar", "zookeeper-jute.jar", "slf4j-api.jar"}) {
    const auto file = dir / jar;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) missing += " " + file.string();
    path += (path.empty() ? "" : ":") + file.string();
  }
  // The log goes to a file through slf4j-simple; without it, slf4j-nop (no log at all).
  std::error_code ec;
  if (std::filesystem::is_regular_file(dir / "slf4j-simple.jar", ec)) {
    path += ":" + (dir / "slf4j-simple.jar").string();
  } else if (std::filesystem::is_regular_file(dir / "slf4j-nop.jar", ec)) {
    path += ":" + (dir / "slf4j-nop.jar").string();
  }
  if (!missing.empty()) {
    throw std::runtime_error("ZooKeeper's jars are missing:" + missing +
                             " (Debian: apt-get install zookeeper; DISTLOCK_JAVA_LIBS names "
                             "another directory)");
  }
  return path;
}

std::optional<std::string> four_letter_word(std::uint16_t port, std::string_view word,
                                            std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  auto left_ms = [&] {
    const auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 1'000'000));
  };
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    if (errno != EINPROGRESS) return std::nullopt;
    pollfd pfd{fd, POLLOUT, 0};
    if (::poll(&pfd, 1, left_ms()) <= 0) return std::nullopt;
    int error = 0;
    socklen_t length = sizeof error;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) {
      return std::nullopt;
    }
  }
  std::size_t sent = 0;
  while (sent < word.size()) {
    const ssize_t n = ::send(fd, word.data() + sent, word.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      pollfd pfd{fd, POLLOUT, 0};
      if (::poll(&pfd, 1, left_ms()) <= 0) return std::nullopt;
      continue;
    }
    return std::nullopt;
  }
  std::string answer;
  for (;;) {
    pollfd pfd{fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, left_ms());
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return std::nullopt;
    char chunk[4096];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      if (answer.empty()) return std::nullopt;
      break;
    }
    answer.append(chunk, static_cast<std::size_t>(n));
  }
  return answer;
}

// ---------------------------------------------------------------------------------------------
// ZooKeeperServer

ZooKeeperServer::ZooKeeperServer(ZooKeeperConfig config) : config_(std::move(config)) {
  directory_ = make_temp_directory("distlock-zookeeper");
  std::string failures;
  try {
    std::filesystem::create_directories(directory_ / "data");
    for (int attempt = 1; attempt <= kPortAttempts; ++attempt) {
      port_ = free_loopback_port();
      config_text_ = common_config(config_, directory_ / "data", port_);
      write_config();
      launch();
      if (await_serving(kStartupDeadline)) return;
      const std::string log = log_tail();
      process_.reset();
      if (!bind_failed(log)) {
        throw std::runtime_error("ZooKeeper (" + java_program().string() + ") on port " +
                                 std::to_string(port_) +
                                 " exited before it served; the end of its log:\n" + log);
      }
      failures += "port " + std::to_string(port_) + ": address in use\n";
    }
    throw std::runtime_error("ZooKeeper could not bind a loopback port in " +
                             std::to_string(kPortAttempts) + " attempts:\n" + failures);
  } catch (...) {
    process_.reset();
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
    throw;
  }
}

ZooKeeperServer::ZooKeeperServer(Member, std::filesystem::path directory, std::uint16_t port,
                                 std::string config_text, ZooKeeperConfig config, int id)
    : config_(std::move(config)),
      directory_(std::move(directory)),
      port_(port),
      config_text_(std::move(config_text)),
      id_(id),
      owns_directory_(false) {
  std::filesystem::create_directories(directory_ / "data");
  write_file(directory_ / "data" / "myid", std::to_string(id_) + "\n");
  write_config();
}

ZooKeeperServer::~ZooKeeperServer() {
  try {
    stop();
  } catch (...) {
    // Subprocess's destructor SIGKILLs and reaps what is left.
  }
  process_.reset();
  discard_class_archive_draft();
  if (owns_directory_) {
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
  }
}

void ZooKeeperServer::write_config() const { write_file(directory_ / "zoo.cfg", config_text_); }

void ZooKeeperServer::launch() {
  const auto java = java_program();
  if (java.empty()) {
    const char* chosen = std::getenv("DISTLOCK_JAVA");
    throw std::runtime_error(
        chosen != nullptr && *chosen != '\0'
            ? "DISTLOCK_JAVA=" + std::string(chosen) + " is not an executable program"
            : std::string("java not found ($DISTLOCK_JAVA, $JAVA_HOME/bin, PATH, /usr/local/bin, "
                          "/usr/bin, /usr/sbin); the ZooKeeper tests cannot run without it "
                          "(Debian: apt-get install default-jre-headless zookeeper)"));
  }
  const std::string class_path = zookeeper_class_path();
  std::vector<std::string> args = {
      "-Xmx" + config_.max_heap,
      "-XX:+UseSerialGC",
      "-Djava.net.preferIPv4Stack=true",
      "-Dzookeeper.jmx.log4j.disable=true",
      "-Dzookeeper.snapshot.trust.empty=true",
      "-Dorg.slf4j.simpleLogger.logFile=" + (directory_ / "server.log").string(),
      "-Dorg.slf4j.simpleLogger.showDateTime=true",
      "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS"};
  // A JVM that exited before it served (a port taken) may have left its draft.
  discard_class_archive_draft();
  if (config_.quick_start) {
    args.push_back("-XX:TieredStopAtLevel=1");
    const std::filesystem::path archive = DISTLOCK_TEST_CLASS_ARCHIVE;
    std::error_code ec;
    if (std::filesystem::is_regular_file(archive, ec)) {
      args.push_back("-XX:SharedArchiveFile=" + archive.string());
    } else {
      // A draft per server: servers that start together each write their own, and the one
      // stopped first publishes it by an atomic rename.
      archive_draft_ = archive.string() + "." + std::to_string(::getpid()) + "." +
                       std::to_string(port_) + ".draft";
      args.push_back("-XX:ArchiveClassesAtExit=" + archive_draft_.string());
    }
  }
  if (config_.container_check_interval) {
    args.push_back("-Dznode.container.checkIntervalMs=" +
                   std::to_string(config_.container_check_interval->count()));
  }
  args.insert(args.end(), {"-cp", class_path,
                           id_ == 0 ? "org.apache.zookeeper.server.ZooKeeperServerMain"
                                    : "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                           (directory_ / "zoo.cfg").string()});
  Subprocess::Options options;
  options.merge_stderr = true;
  process_ = std::make_unique<Subprocess>(java, args, options);
  // Anything the JVM itself prints (the log goes to the file): drained so it never blocks.
  process_->discard_output();
}

bool ZooKeeperServer::await_serving(std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    if (process_->try_wait()) return false;
    const std::string mode = mode_of(four_letter("srvr", kProbeTimeout));
    if (!mode.empty()) return true;
    if (Clock::now() >= deadline) {
      throw std::runtime_error(
          "ZooKeeper on port " + std::to_string(port_) + " did not serve within " +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(limit).count()) +
          " s; the end of its log:\n" + log_tail());
    }
    std::this_thread::sleep_for(kProbeInterval);
  }
}

std::string ZooKeeperServer::connect_string() const { return "127.0.0.1:" + std::to_string(port_); }

std::string ZooKeeperServer::url() const { return "zookeeper://" + connect_string(); }

void ZooKeeperServer::stop() {
  if (!process_) return;
  process_->kill(SIGCONT);  // a stopped JVM cannot handle SIGTERM
  const ExitStatus status = process_->terminate(kStopGrace);
  process_.reset();
  publish_class_archive(status);
}

void ZooKeeperServer::publish_class_archive(const ExitStatus& status) {
  if (archive_draft_.empty()) return;
  std::error_code ec;
  // The JVM writes the archive before it exits on SIGTERM (exit code 143); one killed
  // before, or while it wrote, leaves no draft or a partial one, never published.
  constexpr int kExitOnSigterm = 128 + SIGTERM;
  if (status.exited && status.code == kExitOnSigterm) {
    std::filesystem::rename(archive_draft_, DISTLOCK_TEST_CLASS_ARCHIVE, ec);
  }
  discard_class_archive_draft();
}

void ZooKeeperServer::discard_class_archive_draft() {
  if (archive_draft_.empty()) return;
  std::error_code ec;
  std::filesystem::remove(archive_draft_, ec);
  archive_draft_.clear();
}

void ZooKeeperServer::start() {
  if (running()) return;
  process_.reset();
  launch();
  if (!await_serving(kStartupDeadline)) {
    const std::string log = log_tail();
    process_.reset();
    throw std::runtime_error("ZooKeeper on port " + std::to_string(port_) +
                             " exited on restart; the end of its log:\n" + log);
  }
}

bool ZooKeeperServer::running() const {
  return process_ != nullptr && !process_->try_wait().has_value();
}

void ZooKeeperServer::kill(int signal) {
  if (!process_) return;
  process_->kill(signal);
  if (signal == SIGKILL) {
    const ExitStatus status = process_->wait(std::chrono::seconds(30));
    process_.reset();
    publish_class_archive(status);
  }
}

int ZooKeeperServer::pid() const { return process_ ? process_->pid() : -1; }

std::optional<std::string> ZooKeeperServer::four_letter(std::string_view word,
                                                        std::chrono::milliseconds timeout) const {
  return four_letter_word(port_, word, timeout);
}

std::string ZooKeeperServer::mode(std::chrono::milliseconds timeout) const {
  return mode_of(four_letter("srvr", timeout));
}

std::string ZooKeeperServer::log_tail(std::size_t max_bytes) const {
  std::string log = read_file(directory_ / "server.log");
  if (log.size() > max_bytes) log = "..." + log.substr(log.size() - max_bytes);
  return log.empty() ? "(empty log)" : log;
}

// ---------------------------------------------------------------------------------------------
// ZooKeeperEnsemble

ZooKeeperEnsemble::ZooKeeperEnsemble(ZooKeeperConfig config) {
  directory_ = make_temp_directory("distlock-zk-ensemble");
  std::string failures;
  try {
    for (int attempt = 1; attempt <= kPortAttempts; ++attempt) {
      // Nine distinct ports: client, quorum and election port per server.
      std::set<std::uint16_t> taken;
      auto port = [&] {
        for (;;) {
          const auto p = free_loopback_port();
          if (taken.insert(p).second) return p;
        }
      };
      std::uint16_t client[kSize];
      std::string peers;
      for (int i = 0; i < kSize; ++i) {
        client[i] = port();
        const auto quorum = port();
        const auto election = port();
        peers += "server." + std::to_string(i + 1) + "=127.0.0.1:" + std::to_string(quorum) + ":" +
                 std::to_string(election) + "\n";
      }
      servers_.clear();
      const auto round = directory_ / ("attempt-" + std::to_string(attempt));
      for (int i = 0; i < kSize; ++i) {
        const auto dir = round / ("server-" + std::to_string(i + 1));
        std::filesystem::create_directories(dir);
        std::string text = common_config(config, dir / "data", client[i]);
        text += "initLimit=20\nsyncLimit=10\ncnxTimeout=2000\n" + peers;
        servers_.push_back(std::unique_ptr<ZooKeeperServer>(
            new ZooKeeperServer(ZooKeeperServer::Member{}, dir, client[i], text, config, i + 1)));
      }
      for (auto& server : servers_) server->launch();
      bool exited = false;
      for (auto& server : servers_) {
        if (!server->await_serving(kStartupDeadline)) exited = true;
      }
      if (!exited) {
        await_quorum();
        return;
      }
      std::string logs;
      bool bind = false;
      for (auto& server : servers_) {
        const std::string log = server->log_tail();
        bind = bind || bind_failed(log);
        logs += "--- server on port " + std::to_string(server->port()) + ":\n" + log + "\n";
      }
      servers_.clear();
      if (!bind)
        throw std::runtime_error("a ZooKeeper ensemble member exited before it served:\n" + logs);
      failures += logs;
    }
    throw std::runtime_error("the ZooKeeper ensemble could not bind its ports in " +
                             std::to_string(kPortAttempts) + " attempts:\n" + failures);
  } catch (...) {
    servers_.clear();
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
    throw;
  }
}

ZooKeeperEnsemble::~ZooKeeperEnsemble() {
  servers_.clear();
  std::error_code ec;
  std::filesystem::remove_all(directory_, ec);
}

std::string ZooKeeperEnsemble::connect_string() const {
  std::string text;
  for (const auto& server : servers_) {
    text += (text.empty() ? "" : ",") + server->connect_string();
  }
  return text;
}

std::string ZooKeeperEnsemble::url() const { return "zookeeper://" + connect_string(); }

int ZooKeeperEnsemble::leader(std::chrono::milliseconds limit) const {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    for (int i = 0; i < kSize; ++i) {
      const auto& server = servers_[static_cast<std::size_t>(i)];
      if (server->running() && server->mode(kProbeTimeout) == "leader") return i;
    }
    if (Clock::now() >= deadline) {
      std::string logs;
      for (const auto& server : servers_) {
        logs += "--- server on port " + std::to_string(server->port()) + " (" +
                (server->running() ? "running" : "stopped") + "):\n" + server->log_tail(2000) +
                "\n";
      }
      throw std::runtime_error("the ZooKeeper ensemble elected no leader within " +
                               std::to_string(limit.count()) + " ms:\n" + logs);
    }
    std::this_thread::sleep_for(kProbeInterval);
  }
}

void ZooKeeperEnsemble::await_quorum(std::chrono::milliseconds limit) const {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    int leaders = 0;
    bool all_serving = true;
    for (const auto& server : servers_) {
      if (!server->running()) continue;
      const std::string mode = server->mode(kProbeTimeout);
      if (mode == "leader") ++leaders;
      if (mode != "leader" && mode != "follower") all_serving = false;
    }
    if (all_serving && leaders == 1) return;
    if (Clock::now() >= deadline) {
      std::string logs;
      for (const auto& server : servers_) {
        logs += "--- server on port " + std::to_string(server->port()) + " (mode \"" +
                server->mode() + "\"):\n" + server->log_tail(2000) + "\n";
      }
      throw std::runtime_error("the ZooKeeper ensemble formed no quorum within " +
                               std::to_string(limit.count()) + " ms:\n" + logs);
    }
    std::this_thread::sleep_for(kProbeInterval);
  }
}

void ZooKeeperEnsemble::kill(int index) { server(index).kill(SIGKILL); }

void ZooKeeperEnsemble::restart(int index) {
  auto& member = server(index);
  member.stop();
  member.launch();
  if (!member.await_serving(kStartupDeadline)) {
    throw std::runtime_error("ZooKeeper ensemble member " + std::to_string(index) +
                             " exited on restart; the end of its log:\n" + member.log_tail());
  }
}

}  // namespace distlock::testing
