// SPDX-License-Identifier: Apache-2.0
// A private redis-server for tests and benchmarks: started on a free loopback port in a
// temporary directory, stopped (and the directory removed) when the object goes away.
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

class RedisServer {
 public:
  // What a test that cannot start it says it could not start.
  static constexpr std::string_view kName = "redis-server";

  // Finds redis-server on PATH (or /usr/bin, /usr/sbin; the environment variable
  // DISTLOCK_REDIS_SERVER, if set, names the program instead); throws std::runtime_error when
  // it is missing or does not come up, with the server's own output in the message.
  // `extra_args` are appended to the command line (e.g. {"--requirepass", "secret"}).
  // The server runs with --port P --bind 127.0.0.1 --save "" --appendonly no --dir <tmp>
  // --daemonize no; it is ready once it has logged "Ready to accept connections". A port
  // that turns out to be taken (another process bound it meanwhile) is retried with another.
  // The server is killed if the thread that started it exits (PR_SET_PDEATHSIG), so a
  // crashed test leaves no server behind: start servers on a thread that outlives them.
  // With `tls`, the port is its TLS port, and it has no other.
  explicit RedisServer(std::vector<std::string> extra_args = {},
                       std::optional<ServerTls> tls = std::nullopt);
  // A Sentinel (redis-server --sentinel) whose configuration file starts with `config`
  // (sentinel monitor ... lines); ready once it has logged its Sentinel ID.
  static std::unique_ptr<RedisServer> sentinel(const std::string& config,
                                               std::optional<ServerTls> tls = std::nullopt);
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  std::uint16_t port() const { return port_; }
  const std::filesystem::path& directory() const { return directory_; }
  // "redis://127.0.0.1:<port>"; "rediss://127.0.0.1:<port>" for a TLS server, whose client
  // adds ?cacert=... to it.
  std::string url() const;
  const std::optional<ServerTls>& tls() const { return tls_; }
  // Runs a command through redis-cli against this server; returns its trimmed stdout
  // (authenticating when the extra arguments gave --requirepass; over TLS with the test CA's
  // client certificate for a TLS server). DISTLOCK_REDIS_CLI, if set,
  // names the program. Throws std::runtime_error when redis-cli is missing or fails (with its
  // output).
  std::string cli(const std::vector<std::string>& args) const;
  // The process id of redis-server.
  int pid() const { return pid_; }
  // What the server wrote up to the point it was ready.
  const std::string& startup_output() const { return startup_output_; }

 private:
  enum class Mode { server, sentinel };
  RedisServer(Mode mode, const std::string& sentinel_config, std::vector<std::string> extra_args,
              std::optional<ServerTls> tls);

  std::filesystem::path directory_;
  std::uint16_t port_ = 0;
  int pid_ = -1;
  std::string startup_output_;
  std::string password_;
  std::optional<ServerTls> tls_;
  std::unique_ptr<Subprocess> process_;
};

// Writes a marker on `master` and waits until `replicas` of its replicas have acknowledged
// it (INFO replication offsets; a replica acknowledges once a second by itself). A replica
// the master lists as online may still not have read anything of the stream: this waits
// until it has. False when `limit` passed first.
bool wait_for_replicas(const RedisServer& master, int replicas, std::chrono::milliseconds limit);

// redis-cli's output, one entry per line.
std::vector<std::string> lines_of(const std::string& text);

// A loopback port nobody listens on right now.
std::uint16_t free_loopback_port();

// The redis-server and redis-cli programs RedisServer runs: $DISTLOCK_REDIS_SERVER or
// $DISTLOCK_REDIS_CLI when set, else found on PATH, /usr/local/bin, /usr/bin, /usr/sbin.
// Empty when missing.
std::filesystem::path redis_server_program();
std::filesystem::path redis_cli_program();

}  // namespace distlock::testing
