// SPDX-License-Identifier: Apache-2.0
#include "postgres_server.h"

#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "redis_server.h"  // free_loopback_port
#include "subprocess.h"

namespace distlock::testing {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr auto kInitdbDeadline = std::chrono::seconds(60);
constexpr auto kStartupDeadline = std::chrono::seconds(30);
constexpr auto kStopGrace = std::chrono::seconds(10);
constexpr auto kKillWait = std::chrono::seconds(60);
constexpr auto kProbeInterval = milliseconds(10);
constexpr int kPortAttempts = 8;
constexpr std::size_t kLogTail = 6000;

std::filesystem::path make_temp_directory() {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / "distlock-postgres-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  }
  return pattern;
}

std::string last_bytes(std::string text, std::size_t max_bytes) {
  if (text.size() > max_bytes) text = "..." + text.substr(text.size() - max_bytes);
  return text.empty() ? "(empty log)" : text;
}

std::string read_from(const std::filesystem::path& path, std::uintmax_t offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string without_trailing_newlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

struct ServerUser {
  uid_t uid;
  gid_t gid;
};

// The user initdb and the server run as: nullopt for this process's own; for root, the
// postgres system user, as PostgreSQL refuses to run as root.
std::optional<ServerUser> server_user() {
  if (::geteuid() != 0) return std::nullopt;
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  const int error = ::getpwnam_r("postgres", &entry, buffer.data(), buffer.size(), &found);
  if (found == nullptr) {
    throw std::runtime_error(
        "this test runs as root, as which PostgreSQL refuses to run, and there is no postgres "
        "user to run it as" +
        (error != 0 ? " (getpwnam_r: " + std::generic_category().message(error) + ")"
                    : std::string(" (Debian's postgresql package creates it)")));
  }
  return ServerUser{entry.pw_uid, entry.pw_gid};
}

struct Command {
  std::filesystem::path program;
  std::vector<std::string> args;
};

// setpriv changes the user and execs in place, so the child's pid stays the program's (the
// postmaster's, for pid()); the change of user clears the kill-with-parent signal, which
// --pdeathsig keep restores.
Command as_server_user(const std::filesystem::path& program, std::vector<std::string> args) {
  const auto user = server_user();
  if (!user) return {program, std::move(args)};
  const auto setpriv = find_program("setpriv");
  if (setpriv.empty()) {
    throw std::runtime_error(
        "setpriv not found (PATH, /usr/local/bin, /usr/bin, /usr/sbin): a root test process "
        "needs it to run PostgreSQL as the postgres user (Debian: apt-get install util-linux)");
  }
  std::vector<std::string> wrapped = {"--reuid=" + std::to_string(user->uid),
                                      "--regid=" + std::to_string(user->gid),
                                      "--clear-groups",
                                      "--pdeathsig",
                                      "keep",
                                      "--",
                                      program.string()};
  wrapped.insert(wrapped.end(), std::make_move_iterator(args.begin()),
                 std::make_move_iterator(args.end()));
  return {setpriv, std::move(wrapped)};
}

bool has_server_programs(const std::filesystem::path& directory) {
  return !find_program((directory / "initdb").string()).empty() &&
         !find_program((directory / "postgres").string()).empty();
}

}  // namespace

std::filesystem::path postgres_bin_directory() {
  if (const char* chosen = std::getenv("DISTLOCK_POSTGRES_BINDIR");
      chosen != nullptr && *chosen != '\0') {
    return has_server_programs(chosen) ? std::filesystem::path(chosen) : std::filesystem::path{};
  }
  std::filesystem::path newest;
  int newest_version = -1;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = entry.path().filename().string();
    const bool is_version =
        !name.empty() && name.size() <= 4 &&
        std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
    if (!is_version) continue;
    const int version = std::stoi(name);
    if (version > newest_version && has_server_programs(entry.path() / "bin")) {
      newest = entry.path() / "bin";
      newest_version = version;
    }
  }
  if (!newest.empty()) return newest;
  const auto initdb = find_program("initdb");
  if (initdb.empty() || !has_server_programs(initdb.parent_path())) return {};
  return initdb.parent_path();
}

PostgresServer::PostgresServer() {
  bin_directory_ = postgres_bin_directory();
  if (bin_directory_.empty()) {
    const char* chosen = std::getenv("DISTLOCK_POSTGRES_BINDIR");
    throw std::runtime_error(
        chosen != nullptr && *chosen != '\0'
            ? "DISTLOCK_POSTGRES_BINDIR=" + std::string(chosen) + " holds no initdb and postgres"
            : std::string("PostgreSQL's initdb and postgres not found (/usr/lib/postgresql/"
                          "<version>/bin, PATH); the tests that need a PostgreSQL server cannot "
                          "run without them (Debian: apt-get install postgresql)"));
  }
  directory_ = make_temp_directory();
  try {
    if (const auto user = server_user()) {
      if (::chown(directory_.c_str(), user->uid, user->gid) != 0) {
        throw std::system_error(errno, std::generic_category(),
                                "chown " + directory_.string() + " to the postgres user");
      }
    }
    initdb();
    std::string failures;
    for (int attempt = 1; attempt <= kPortAttempts; ++attempt) {
      port_ = free_loopback_port();
      if (launch() == Launch::ready) return;
      failures += "port " + std::to_string(port_) + ":\n" + log_since_launch();
    }
    throw std::runtime_error("PostgreSQL could not bind a loopback port in " +
                             std::to_string(kPortAttempts) + " attempts:\n" + failures);
  } catch (...) {
    process_.reset();
    std::error_code ec;
    std::filesystem::remove_all(directory_, ec);
    throw;
  }
}

PostgresServer::~PostgresServer() {
  try {
    // The data goes with the directory: nothing to checkpoint.
    shut_down(SIGQUIT);
  } catch (...) {
    // Subprocess's destructor SIGKILLs and reaps what is left.
  }
  process_.reset();
  std::error_code ec;
  std::filesystem::remove_all(directory_, ec);
}

void PostgresServer::initdb() const {
  // --no-locale: the environment's locale may be one this machine lacks, and no test depends
  // on collation.
  const Command command = as_server_user(
      bin_directory_ / "initdb", {"-D", (directory_ / "data").string(), "-U", "distlock", "-A",
                                  "trust", "-E", "UTF8", "--no-locale", "--no-sync"});
  Subprocess::Options options;
  options.merge_stderr = true;
  Subprocess process(command.program, command.args, options);
  std::string output;
  ExitStatus status;
  try {
    output = process.read_all(kInitdbDeadline);
    status = process.wait(kInitdbDeadline);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("initdb in " + directory_.string() + " did not finish: " + e.what());
  }
  if (!status.success()) {
    throw std::runtime_error("initdb (" + (bin_directory_ / "initdb").string() + ") failed (" +
                             status.describe() + "): " + last_bytes(output, kLogTail));
  }
}

PostgresServer::Launch PostgresServer::launch() {
  const auto log_file = directory_ / "server.log";
  const auto deadline = Clock::now() + kStartupDeadline;
  for (;;) {
    std::error_code ec;
    const auto log_size = std::filesystem::file_size(log_file, ec);
    launch_log_offset_ = ec ? 0 : log_size;
    const Command command =
        as_server_user(bin_directory_ / "postgres",
                       {"-D", (directory_ / "data").string(), "-p", std::to_string(port_), "-c",
                        "listen_addresses=127.0.0.1", "-c",
                        "unix_socket_directories=" + directory_.string(), "-c", "fsync=off"});
    Subprocess::Options options;
    options.merge_stderr = true;
    options.output_file = log_file;
    process_ = std::make_unique<Subprocess>(command.program, command.args, options);
    if (await_ready(deadline)) return Launch::ready;

    const ExitStatus status = process_->wait(kStopGrace);
    process_.reset();
    const std::string log = log_since_launch();
    if (log.find("Address already in use") != std::string::npos) return Launch::port_taken;
    // The processes of a killed postmaster each leave when they notice its death; until the
    // last has, a new postmaster finds their shared memory in use and refuses to start.
    if (log.find("pre-existing shared memory block") != std::string::npos &&
        Clock::now() < deadline) {
      std::this_thread::sleep_for(kProbeInterval);
      continue;
    }
    throw std::runtime_error(
        "PostgreSQL on port " + std::to_string(port_) + " exited (" + status.describe() +
        ") before it accepted connections; the end of its log:\n" + last_bytes(log, kLogTail));
  }
}

bool PostgresServer::await_ready(Clock::time_point deadline) const {
  const auto lock_file = directory_ / "data" / "postmaster.pid";
  const std::string postmaster = std::to_string(process_->pid());
  const std::string ping = url() + "?connect_timeout=2";
  for (;;) {
    if (process_->try_wait()) return false;
    // PQping alone could be answered by another server that took the port meanwhile: the lock
    // file's first line is the postmaster's pid, its eighth its status.
    std::ifstream lock(lock_file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(lock, line);) lines.push_back(line);
    const bool ours_ready =
        lines.size() >= 8 && lines[0] == postmaster && lines[7].rfind("ready", 0) == 0;
    if (ours_ready && ::PQping(ping.c_str()) == PQPING_OK) return true;
    if (Clock::now() >= deadline) {
      throw std::runtime_error(
          "PostgreSQL on port " + std::to_string(port_) + " did not accept connections within " +
          std::to_string(kStartupDeadline.count()) + " s; the end of its log:\n" + log_tail());
    }
    std::this_thread::sleep_for(kProbeInterval);
  }
}

void PostgresServer::shut_down(int signal) {
  if (!process_) return;
  process_->kill(SIGCONT);
  process_->kill(signal);
  try {
    process_->wait(kStopGrace);
  } catch (const std::runtime_error&) {
    process_->kill(SIGKILL);
    process_->wait(kKillWait);
  }
  process_.reset();
}

void PostgresServer::stop() { shut_down(SIGINT); }

void PostgresServer::restart() {
  stop();
  start_again();
}

void PostgresServer::restart_after_crash() {
  shut_down(SIGQUIT);
  start_again();
}

void PostgresServer::start_again() {
  if (launch() == Launch::port_taken) {
    throw std::runtime_error("PostgreSQL cannot restart on port " + std::to_string(port_) +
                             ": another process bound it while the server was stopped; the end "
                             "of its log:\n" +
                             last_bytes(log_since_launch(), kLogTail));
  }
}

int PostgresServer::pid() const { return process_ ? process_->pid() : -1; }

std::string PostgresServer::url() const {
  return "postgresql://distlock@127.0.0.1:" + std::to_string(port_) + "/postgres";
}

std::string PostgresServer::psql(const std::string& sql) const {
  const std::string where = "PostgreSQL on port " + std::to_string(port_);
  const std::unique_ptr<PGconn, decltype(&::PQfinish)> connection(
      ::PQconnectdb((url() + "?connect_timeout=10").c_str()), &::PQfinish);
  if (connection == nullptr) throw std::runtime_error(where + ": libpq is out of memory");
  if (::PQstatus(connection.get()) != CONNECTION_OK) {
    throw std::runtime_error("cannot connect to " + where + ": " +
                             without_trailing_newlines(::PQerrorMessage(connection.get())));
  }
  const std::unique_ptr<PGresult, decltype(&::PQclear)> result(
      ::PQexec(connection.get(), sql.c_str()), &::PQclear);
  const ExecStatusType status = ::PQresultStatus(result.get());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    // No result at all (out of memory, the connection lost) leaves its message on the
    // connection.
    const char* message = result != nullptr ? ::PQresultErrorMessage(result.get())
                                            : ::PQerrorMessage(connection.get());
    throw std::runtime_error(where + ": " + sql + ": " + ::PQresStatus(status) + ": " +
                             without_trailing_newlines(message));
  }
  if (::PQntuples(result.get()) == 0 || ::PQnfields(result.get()) == 0) return {};
  return ::PQgetvalue(result.get(), 0, 0);
}

std::string PostgresServer::log_tail(std::size_t max_bytes) const {
  return last_bytes(read_from(directory_ / "server.log", 0), max_bytes);
}

std::string PostgresServer::log_since_launch() const {
  return last_bytes(read_from(directory_ / "server.log", launch_log_offset_), kLogTail);
}

}  // namespace distlock::testing
