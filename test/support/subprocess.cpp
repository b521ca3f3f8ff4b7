// SPDX-License-Identifier: Apache-2.0
#include "subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>

namespace distlock::testing {

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

void close_fd(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return 0;
  return static_cast<int>(std::min<long long>(left.count(), 1'000'000));
}

ExitStatus decode(int raw) {
  ExitStatus status;
  if (WIFEXITED(raw)) {
    status.exited = true;
    status.code = WEXITSTATUS(raw);
  } else if (WIFSIGNALED(raw)) {
    status.signaled = true;
    status.signal = WTERMSIG(raw);
  }
  return status;
}

int open_pidfd(int pid) {
#ifdef SYS_pidfd_open
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0) {
    ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    return static_cast<int>(fd);
  }
#else
  (void)pid;
#endif
  return -1;
}

std::string quote_output(const std::string& output) {
  constexpr std::size_t kMax = 4000;
  if (output.size() <= kMax) return "\"" + output + "\"";
  return "\"..." + output.substr(output.size() - kMax) + "\"";
}

}  // namespace

std::string ExitStatus::describe() const {
  if (exited) return "exit code " + std::to_string(code);
  if (signaled) {
    const char* name = ::strsignal(signal);
    return "killed by signal " + std::to_string(signal) + " (" + (name ? name : "?") + ")";
  }
  return "unknown status";
}

struct Subprocess::Drain {
  std::thread thread;
  int wake_read = -1;
  int wake_write = -1;
};

Subprocess::Subprocess(const std::filesystem::path& executable,
                       const std::vector<std::string>& args)
    : Subprocess(executable, args, Options{}) {}

Subprocess::Subprocess(const std::filesystem::path& executable,
                       const std::vector<std::string>& args, Options options) {
  // Everything the child needs is prepared before fork: after it, the child of a
  // multi-threaded process may only make async-signal-safe calls.
  const std::string program = executable.string();
  std::vector<std::string> argv_storage;
  argv_storage.reserve(args.size() + 1);
  argv_storage.push_back(program);
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  if (options.merge_stderr && !options.error_file.empty()) {
    throw std::invalid_argument("Subprocess: merge_stderr and error_file both set");
  }
  std::vector<std::string> environment_storage;
  std::vector<char*> environment;
  char** envp = environ;
  if (!options.environment.empty()) {
    auto overridden = [&](std::string_view entry) {
      const auto name = entry.substr(0, entry.find('=') + 1);
      return std::any_of(options.environment.begin(), options.environment.end(),
                         [&](const std::string& own) { return own.rfind(name, 0) == 0; });
    };
    for (char** entry = environ; *entry != nullptr; ++entry) {
      if (!overridden(*entry)) environment_storage.emplace_back(*entry);
    }
    environment_storage.insert(environment_storage.end(), options.environment.begin(),
                               options.environment.end());
    for (auto& entry : environment_storage) environment.push_back(entry.data());
    environment.push_back(nullptr);
    envp = environment.data();
  }

  // out[0] is what this object reads, out[1] the child's stdout; no out[0] for a file.
  int out[2] = {-1, -1};
  if (options.output_file.empty()) {
    if (::pipe2(out, O_CLOEXEC) != 0) throw_errno("pipe2");
  } else {
    out[1] = ::open(options.output_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out[1] < 0) throw_errno("open " + options.output_file.string());
  }
  int error_fd = -1;
  if (!options.error_file.empty()) {
    error_fd = ::open(options.error_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (error_fd < 0) {
      const int saved = errno;
      close_fd(out[0]);
      close_fd(out[1]);
      errno = saved;
      throw_errno("open " + options.error_file.string());
    }
  }
  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0) {
    const int saved = errno;
    close_fd(out[0]);
    close_fd(out[1]);
    close_fd(error_fd);
    errno = saved;
    throw_errno("pipe2");
  }
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid < 0) {
    const int saved = errno;
    close_fd(out[0]);
    close_fd(out[1]);
    close_fd(error_fd);
    ::close(exec_error[0]);
    ::close(exec_error[1]);
    errno = saved;
    throw_errno("fork");
  }
  if (pid == 0) {
    if (options.kill_with_parent) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::dup2(out[1], STDOUT_FILENO);
    if (options.merge_stderr) ::dup2(out[1], STDERR_FILENO);
    if (error_fd >= 0) ::dup2(error_fd, STDERR_FILENO);
      // No descriptor of ours (sockets of the runtime, other children's pipes) may leak into
      // the child: a leaked pipe end would keep another child's output from ever ending.
#if defined(SYS_close_range) && defined(CLOSE_RANGE_CLOEXEC)
    ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
#elif defined(SYS_close_range)
    ::syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
#endif
    ::execve(argv[0], argv.data(), envp);
    const int error = errno;
    [[maybe_unused]] auto ignored = ::write(exec_error[1], &error, sizeof error);
    ::_exit(127);
  }

  close_fd(out[1]);
  close_fd(error_fd);
  ::close(exec_error[1]);
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(exec_error[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  ::close(exec_error[0]);
  if (n > 0) {
    close_fd(out[0]);
    int raw = 0;
    while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
    }
    throw std::runtime_error("cannot run " + program + ": " + std::strerror(child_errno));
  }
  pid_ = pid;
  stdout_fd_ = out[0];
  eof_ = stdout_fd_ < 0;
  pidfd_ = open_pidfd(pid);
}

Subprocess::~Subprocess() {
  if (pid_ > 0 && !status_) {
    kill(SIGKILL);
    try {
      wait(std::chrono::seconds(60));
    } catch (...) {
      // A SIGKILLed child that is not gone after a minute: nothing more can be done.
    }
  }
  stop_drain();
  close_fd(stdout_fd_);
  close_fd(pidfd_);
}

bool Subprocess::fill(Clock::time_point deadline) {
  if (eof_) return false;
  pollfd pfd{stdout_fd_, POLLIN, 0};
  const int ready = ::poll(&pfd, 1, remaining_ms(deadline));
  if (ready < 0) {
    if (errno == EINTR) return true;
    throw_errno("poll");
  }
  if (ready == 0) return true;
  char chunk[4096];
  const ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
  if (n < 0) {
    if (errno == EINTR || errno == EAGAIN) return true;
    throw_errno("read");
  }
  if (n == 0) {
    eof_ = true;
    return false;
  }
  buffer_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

std::optional<std::string> Subprocess::read_line(std::chrono::milliseconds timeout) {
  if (drain_) throw std::logic_error("Subprocess::read_line after discard_output");
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    if (eof_) {
      if (buffer_.empty()) return std::nullopt;
      std::string rest = std::move(buffer_);
      buffer_.clear();
      return rest;
    }
    if (Clock::now() >= deadline) {
      throw std::runtime_error("pid " + std::to_string(pid_) + " wrote no line within " +
                               std::to_string(timeout.count()) +
                               " ms; output so far: " + quote_output(buffer_));
    }
    fill(deadline);
  }
}

std::string Subprocess::read_all(std::chrono::milliseconds timeout) {
  if (drain_) throw std::logic_error("Subprocess::read_all after discard_output");
  const auto deadline = Clock::now() + timeout;
  while (!eof_) {
    if (Clock::now() >= deadline) {
      throw std::runtime_error(
          "pid " + std::to_string(pid_) + " did not finish its output within " +
          std::to_string(timeout.count()) + " ms; output so far: " + quote_output(buffer_));
    }
    fill(deadline);
  }
  std::string all = std::move(buffer_);
  buffer_.clear();
  return all;
}

void Subprocess::discard_output() {
  if (drain_ || stdout_fd_ < 0) return;
  auto drain = std::make_unique<Drain>();
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC) != 0) throw_errno("pipe2");
  drain->wake_read = wake[0];
  drain->wake_write = wake[1];
  const int fd = stdout_fd_;
  const int wake_fd = wake[0];
  drain->thread = std::thread([fd, wake_fd] {
    char chunk[4096];
    for (;;) {
      pollfd pfds[2] = {{fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
      if (::poll(pfds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (pfds[1].revents != 0) return;
      if (pfds[0].revents != 0) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n == 0) return;
        if (n < 0 && errno != EINTR && errno != EAGAIN) return;
      }
    }
  });
  buffer_.clear();
  drain_ = std::move(drain);
}

void Subprocess::stop_drain() {
  if (!drain_) return;
  const char byte = 0;
  [[maybe_unused]] auto ignored = ::write(drain_->wake_write, &byte, 1);
  if (drain_->thread.joinable()) drain_->thread.join();
  close_fd(drain_->wake_read);
  close_fd(drain_->wake_write);
  drain_.reset();
}

void Subprocess::kill(int signal) {
  if (pid_ <= 0 || status_) return;
  // Not reaped yet, so the pid cannot have been reused.
  ::kill(pid_, signal);
}

std::optional<ExitStatus> Subprocess::try_wait() {
  if (status_) return status_;
  int raw = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &raw, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r < 0) throw_errno("waitpid");
  if (r == 0) return std::nullopt;
  status_ = decode(raw);
  return status_;
}

ExitStatus Subprocess::wait(std::chrono::milliseconds timeout) {
  if (status_) return *status_;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (auto status = try_wait()) return *status;
    if (Clock::now() >= deadline) {
      throw std::runtime_error("pid " + std::to_string(pid_) + " did not exit within " +
                               std::to_string(timeout.count()) + " ms");
    }
    if (pidfd_ >= 0) {
      // The pidfd turns readable when the child exits: no polling interval.
      pollfd pfd{pidfd_, POLLIN, 0};
      if (::poll(&pfd, 1, remaining_ms(deadline)) < 0 && errno != EINTR) throw_errno("poll");
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
}

ExitStatus Subprocess::terminate(std::chrono::milliseconds grace) {
  if (status_) return *status_;
  kill(SIGTERM);
  try {
    return wait(grace);
  } catch (const std::runtime_error&) {
    kill(SIGKILL);
    return wait(std::chrono::seconds(60));
  }
}

std::filesystem::path find_program(const std::string& name) {
  auto executable = [](const std::filesystem::path& candidate) {
    std::error_code ec;
    return std::filesystem::is_regular_file(candidate, ec) &&
           ::access(candidate.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    const std::filesystem::path direct(name);
    return executable(direct) ? direct : std::filesystem::path{};
  }
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::string all = path;
    std::size_t start = 0;
    for (;;) {
      const auto colon = all.find(':', start);
      dirs.push_back(all.substr(start, colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  for (const char* dir : {"/usr/local/bin", "/usr/bin", "/usr/sbin"}) dirs.emplace_back(dir);
  for (const auto& dir : dirs) {
    if (dir.empty()) continue;
    const auto candidate = std::filesystem::path(dir) / name;
    if (executable(candidate)) return candidate;
  }
  return {};
}

}  // namespace distlock::testing
