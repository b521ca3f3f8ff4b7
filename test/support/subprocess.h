// SPDX-License-Identifier: Apache-2.0
// A child process for tests: spawned with its stdout on a pipe this object reads, killed and
// reaped when the object goes away. Linux only (fork/exec, pidfd, PR_SET_PDEATHSIG).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace distlock::testing {

// How a child ended.
struct ExitStatus {
  bool exited = false;  // exited on its own: `code` is valid
  int code = 0;
  bool signaled = false;  // killed by a signal: `signal` is valid
  int signal = 0;

  bool success() const { return exited && code == 0; }
  // "exit code 3", "killed by signal 9 (Killed)"
  std::string describe() const;
};

class Subprocess {
 public:
  struct Options {
    // Also send the child's stderr into the stdout pipe (default: the child inherits ours,
    // so its complaints show up in the test's output).
    bool merge_stderr = false;
    // Kill the child (SIGKILL) if the thread that spawned it dies, so that a crashed test
    // leaves no orphans behind. Note: the *thread*, not the process (PR_SET_PDEATHSIG).
    bool kill_with_parent = true;
    // Append the child's stdout (and, with merge_stderr, its stderr) to this file instead of
    // the pipe: for a server whose later children write to the same stream and whose log is
    // wanted after it failed. read_line and read_all then find no output.
    std::filesystem::path output_file;
    // Append the child's stderr to this file instead of sending it to ours: for a client whose
    // complaints are wanted apart from its output, in an error message. Not with merge_stderr.
    std::filesystem::path error_file;
    // "NAME=value" entries added to the environment the child inherits, replacing variables of
    // the same name: for a client that reads settings from its environment (ETCDCTL_API), which
    // the test's own environment must not decide.
    std::vector<std::string> environment;
  };

  // Runs `executable` (a path; no PATH lookup) with `args` as argv[1...]. Throws
  // std::runtime_error when the program cannot be started (it does not exist, say), and
  // std::invalid_argument for both merge_stderr and an error_file.
  Subprocess(const std::filesystem::path& executable, const std::vector<std::string>& args);
  Subprocess(const std::filesystem::path& executable, const std::vector<std::string>& args,
             Options options);
  // Kills the child with SIGKILL if it still runs, and reaps it.
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  int pid() const { return pid_; }

  // One line of the child's stdout, without its '\n'. nullopt at end of output (the child
  // closed stdout or exited; a last line without '\n' is returned first). Throws
  // std::runtime_error if no complete line arrives within `timeout`.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout);
  // Everything up to the end of the child's output. Throws std::runtime_error on timeout.
  std::string read_all(std::chrono::milliseconds timeout);
  // What was read but not yet returned by read_line (for error messages).
  const std::string& pending_output() const { return buffer_; }

  // From now on, reads and discards the child's output on a background thread, so a child
  // that keeps writing never blocks on a full pipe. read_line/read_all may not be called
  // afterwards.
  void discard_output();

  // Sends `signal` to the child (no-op once it has been reaped).
  void kill(int signal);
  // Waits for the child to exit and reaps it. Throws std::runtime_error after `timeout`
  // (the child is left running). Returns the same status again on later calls.
  ExitStatus wait(std::chrono::milliseconds timeout);
  // The status if the child has exited (reaping it), nullopt while it runs.
  std::optional<ExitStatus> try_wait();
  // SIGTERM, then SIGKILL if it has not exited after `grace`; reaps it.
  ExitStatus terminate(std::chrono::milliseconds grace);

 private:
  // Reads what is available within the deadline into buffer_; false at EOF.
  bool fill(std::chrono::steady_clock::time_point deadline);
  void stop_drain();

  int pid_ = -1;
  int pidfd_ = -1;  // -1 where pidfd_open is unavailable
  int stdout_fd_ = -1;
  bool eof_ = false;
  std::string buffer_;
  std::optional<ExitStatus> status_;
  struct Drain;
  std::unique_ptr<Drain> drain_;
};

// Looks `name` up in PATH, then in /usr/local/bin, /usr/bin, /usr/sbin; empty if absent.
std::filesystem::path find_program(const std::string& name);

}  // namespace distlock::testing
