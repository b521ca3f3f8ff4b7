// SPDX-License-Identifier: Apache-2.0
#include "redis_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "subprocess.h"

namespace distlock::testing {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr auto kStartupDeadline = std::chrono::seconds(20);
constexpr auto kStopGrace = std::chrono::seconds(10);
constexpr auto kCliDeadline = std::chrono::seconds(30);
constexpr int kPortAttempts = 8;

std::filesystem::path make_temp_directory() {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / "distlock-redis-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  }
  return pattern;
}

bool bind_failed(const std::string& output) {
  return output.find("Address already in use") != std::string::npos ||
         output.find("Could not create server TCP listening socket") != std::string::npos ||
         output.find("Failed listening on port") != std::string::npos;
}

std::string trim(std::string text) {
  const auto end = text.find_last_not_of(" \t\r\n");
  text.erase(end == std::string::npos ? 0 : end + 1);
  const auto begin = text.find_first_not_of(" \t\r\n");
  text.erase(0, begin == std::string::npos ? text.size() : begin);
  return text;
}

std::filesystem::path program_from(const char* variable, const std::string& name) {
  if (const char* chosen = std::getenv(variable); chosen != nullptr && *chosen != '\0') {
    return find_program(chosen);
  }
  return find_program(name);
}

}  // namespace

std::filesystem::path redis_server_program() {
  return program_from("DISTLOCK_REDIS_SERVER", "redis-server");
}

std::filesystem::path redis_cli_program() {
  return program_from("DISTLOCK_REDIS_CLI", "redis-cli");
}

std::uint16_t free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::system_error(error, std::generic_category(), "bind 127.0.0.1:0");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

RedisServer::RedisServer(std::vector<std::string> extra_args, std::optional<ServerTls> tls)
    : RedisServer(Mode::server, "", std::move(extra_args), std::move(tls)) {}

std::unique_ptr<RedisServer> RedisServer::sentinel(const std::string& config,
                                                   std::optional<ServerTls> tls) {
  return std::unique_ptr<RedisServer>(new RedisServer(Mode::sentinel, config, {}, std::move(tls)));
}

RedisServer::RedisServer(Mode mode, const std::string& sentinel_config,
                         std::vector<std::string> extra_args, std::optional<ServerTls> tls)
    : tls_(std::move(tls)) {
  const auto program = redis_server_program();
  if (program.empty()) {
    const char* chosen = std::getenv("DISTLOCK_REDIS_SERVER");
    throw std::runtime_error(
        chosen != nullptr && *chosen != '\0'
            ? "DISTLOCK_REDIS_SERVER=" + std::string(chosen) + " is not an executable program"
            : std::string("redis-server not found on PATH, in /usr/local/bin, /usr/bin or "
                          "/usr/sbin; the tests that need a Redis server cannot run without "
                          "it (Debian: apt-get install redis-server)"));
  }
  for (std::size_t i = 0; i + 1 < extra_args.size(); ++i) {
    if (extra_args[i] == "--requirepass") password_ = extra_args[i + 1];
  }
  directory_ = make_temp_directory();
  const std::filesystem::path config_file = directory_ / "sentinel.conf";
  const std::string_view ready_line =
      mode == Mode::server ? "Ready to accept connections" : "Sentinel ID is";

  std::string failures;
  try {
    for (int attempt = 1; attempt <= kPortAttempts; ++attempt) {
      const std::uint16_t port = free_loopback_port();
      std::vector<std::string> args;
      if (mode == Mode::sentinel) {
        // Sentinel rewrites its file: a fresh one per attempt.
        std::ofstream(config_file, std::ios::trunc) << sentinel_config;
        args = {config_file.string(), "--sentinel"};
      }
      if (tls_)
        args.insert(args.end(),
                    {"--port", "0", "--tls-port", std::to_string(port), "--tls-cert-file",
                     tls_->identity.certificate.string(), "--tls-key-file",
                     tls_->identity.key.string(), "--tls-ca-cert-file", tls_->ca.string(),
                     "--tls-auth-clients", tls_->client_certificates_required ? "yes" : "no"});
      else
        args.insert(args.end(), {"--port", std::to_string(port)});
      args.insert(args.end(), {"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
                               directory_.string(), "--daemonize", "no"});
      args.insert(args.end(), extra_args.begin(), extra_args.end());

      Subprocess::Options options;
      options.merge_stderr = true;
      auto process = std::make_unique<Subprocess>(program, args, options);

      std::string output;
      bool ready = false;
      const auto deadline = Clock::now() + kStartupDeadline;
      try {
        for (;;) {
          const auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now());
          auto line = process->read_line(std::max(left, milliseconds(0)));
          if (!line) break;  // the server closed its output: it exited
          output += *line;
          output += '\n';
          if (line->find(ready_line) != std::string::npos) {
            ready = true;
            break;
          }
        }
      } catch (const std::runtime_error& timeout) {
        output += process->pending_output();
        process->terminate(kStopGrace);
        throw std::runtime_error(
            "redis-server on port " + std::to_string(port) + " was not ready within " +
            std::to_string(kStartupDeadline.count()) + " s; its output:\n" + output);
      }

      if (ready) {
        // Keep its later log lines from filling the pipe and blocking it.
        process->discard_output();
        port_ = port;
        pid_ = process->pid();
        startup_output_ = std::move(output);
        process_ = std::move(process);
        return;
      }

      const ExitStatus status = process->terminate(kStopGrace);
      if (!bind_failed(output)) {
        throw std::runtime_error("redis-server (" + program.string() + ") on port " +
                                 std::to_string(port) + " ended (" + status.describe() +
                                 ") before it was ready; its output:\n" + output);
      }
      failures += "port " + std::to_string(port) + ": " + output;
    }
    throw std::runtime_error("redis-server could not bind a loopback port in " +
                             std::to_string(kPortAttempts) + " attempts:\n" + failures);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
    throw;
  }
}

RedisServer::~RedisServer() {
  if (process_) {
    try {
      process_->terminate(kStopGrace);
    } catch (...) {
      // Subprocess's own destructor SIGKILLs and reaps what is left.
    }
    process_.reset();
  }
  std::error_code ec;
  std::filesystem::remove_all(directory_, ec);
}

std::string RedisServer::url() const {
  return (tls_ ? "rediss://127.0.0.1:" : "redis://127.0.0.1:") + std::to_string(port_);
}

std::string RedisServer::cli(const std::vector<std::string>& args) const {
  const std::filesystem::path program = redis_cli_program();
  if (program.empty()) {
    throw std::runtime_error(
        "redis-cli not found ($DISTLOCK_REDIS_CLI, PATH, /usr/local/bin, /usr/bin, /usr/sbin)");
  }
  std::vector<std::string> argv = {"-h", "127.0.0.1", "-p", std::to_string(port_)};
  if (!password_.empty()) {
    argv.insert(argv.end(), {"-a", password_, "--no-auth-warning"});
  }
  if (tls_) {
    const TlsFiles& files = tls_files();
    argv.insert(argv.end(),
                {"--tls", "--cacert", tls_->ca.string(), "--cert",
                 files.client.certificate.string(), "--key", files.client.key.string()});
  }
  argv.insert(argv.end(), args.begin(), args.end());

  Subprocess::Options options;
  options.merge_stderr = true;
  Subprocess process(program, argv, options);
  std::string output = process.read_all(kCliDeadline);
  const ExitStatus status = process.wait(kCliDeadline);
  if (!status.success()) {
    std::string command;
    for (const auto& arg : args) command += " " + arg;
    throw std::runtime_error("redis-cli" + command + " failed (" + status.describe() +
                             "): " + output);
  }
  return trim(std::move(output));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool wait_for_replicas(const RedisServer& master, int replicas, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  master.cli({"INCR", "distlock-test:replication-marker"});
  long long written = -1;
  for (;;) {
    std::istringstream info(master.cli({"INFO", "replication"}));
    int caught_up = 0;
    std::vector<long long> online_offsets;
    for (std::string line; std::getline(info, line);) {
      line = trim(line);
      if (written < 0 && line.rfind("master_repl_offset:", 0) == 0) {
        written = std::stoll(line.substr(line.find(':') + 1));
      } else if (line.rfind("slave", 0) == 0 && line.find("state=online") != std::string::npos) {
        const auto at = line.find("offset=");
        if (at != std::string::npos) online_offsets.push_back(std::stoll(line.substr(at + 7)));
      }
    }
    for (const long long offset : online_offsets)
      if (offset >= written) ++caught_up;
    if (caught_up >= replicas) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(50));
  }
}

}  // namespace distlock::testing
