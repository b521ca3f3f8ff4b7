// SPDX-License-Identifier: Apache-2.0
// A private PostgreSQL server for tests, run from Debian's postgresql package: a cluster made by
// initdb in a temporary directory (superuser distlock, trust authentication, UTF8), started on a
// free loopback port with its Unix socket in that directory and fsync off, its log in
// <directory>/server.log; all of it goes away with the object.
//
// PostgreSQL refuses to run as root: a root test process runs initdb and the server as the
// postgres system user (setpriv), which then owns the directory.
//
// Readiness is awaited by polling (the postmaster's lock file and PQping), never by sleeping.
// The server is killed if the thread that started it exits (PR_SET_PDEATHSIG): start it on a
// thread that outlives it.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace distlock::testing {

class Subprocess;

// The directory of initdb and postgres: $DISTLOCK_POSTGRES_BINDIR if set, else the newest
// /usr/lib/postgresql/<version>/bin (Debian's), else where initdb is on PATH. Empty when missing.
std::filesystem::path postgres_bin_directory();

class PostgresServer {
 public:
  // What a test that cannot start it says it could not start.
  static constexpr std::string_view kName = "PostgreSQL";

  // Creates the cluster and starts the server, ready for connections. Throws
  // std::runtime_error naming what failed (initdb, the server), with the end of its output.
  // A port that turns out to be taken (another process bound it meanwhile) is retried with
  // another.
  PostgresServer();
  // Shuts the server down at once (immediate shutdown) and removes the directory.
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  std::uint16_t port() const { return port_; }
  // "postgresql://distlock@127.0.0.1:<port>/postgres"
  std::string url() const;
  const std::filesystem::path& directory() const { return directory_; }
  // The process id of the postmaster; -1 while stopped.
  int pid() const;

  // Shuts the server down (fast shutdown: clients are disconnected, the data checkpointed) and
  // reaps it; a frozen (SIGSTOPped) or killed server too. The port and the data stay, for
  // restart(). No-op when stopped.
  void stop();
  // stop(), then starts the server again on the same port with the same data, and waits until
  // it accepts connections. Throws like the constructor.
  void restart();
  // The same after an immediate shutdown (SIGQUIT: no checkpoint, the clients cut off), as
  // after a crash: the start replays the write-ahead log.
  void restart_after_crash();

  // Runs one SQL statement (libpq's PQexec) on a connection of its own; returns the first
  // column of the first row, empty when there is none (or the value is NULL). Throws
  // std::runtime_error with the server's message when the connection or the statement fails.
  std::string psql(const std::string& sql) const;
  // The last `max_bytes` of the server's log.
  std::string log_tail(std::size_t max_bytes = 6000) const;

 private:
  enum class Launch { ready, port_taken };

  void initdb() const;
  // Starts the postmaster on port_ and waits until it accepts connections. port_taken: it
  // exited because another process had bound the port. Throws on any other failure.
  Launch launch();
  // True once the postmaster accepts connections; false when it exited first.
  bool await_ready(std::chrono::steady_clock::time_point deadline) const;
  // SIGCONT (a frozen postmaster handles no signal), then `signal`; SIGKILL after a grace
  // period.
  void shut_down(int signal);
  // Starts the stopped server on its port again; throws when another process took the port.
  void start_again();
  std::string log_since_launch() const;

  std::filesystem::path bin_directory_;
  std::filesystem::path directory_;
  std::uint16_t port_ = 0;
  // Where server.log ended when the running (or last) postmaster started.
  std::uintmax_t launch_log_offset_ = 0;
  std::unique_ptr<Subprocess> process_;
};

}  // namespace distlock::testing
