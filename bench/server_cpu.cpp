// SPDX-License-Identifier: Apache-2.0
#include "server_cpu.h"

#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace distlock::bench {
namespace {

[[noreturn]] void fail(const std::string& doing) {
  throw std::runtime_error(doing + ": " + std::strerror(errno));
}

}  // namespace

ServerCpu::ServerCpu(bool share) : cpus_(std::thread::hardware_concurrency()) {
  if (share || cpus_ < 2) return;
  cpu_set_t clients;
  CPU_ZERO(&clients);
  for (unsigned cpu = 1; cpu < cpus_; ++cpu) CPU_SET(cpu, &clients);
  // The calling thread's set, which every thread and process it starts from now on inherits.
  if (::sched_setaffinity(0, sizeof clients, &clients) != 0)
    fail("keeping the benchmark off CPU 0");
  split_ = true;
}

void ServerCpu::place_server(int pid) const {
  if (!split_) return;
  cpu_set_t server;
  CPU_ZERO(&server);
  CPU_SET(0, &server);
  // Its threads (the main one and the background ones) have all started once it is ready.
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks))
    if (::sched_setaffinity(std::stoi(task.path().filename().string()), sizeof server, &server) !=
        0)
      fail("putting the server (pid " + std::to_string(pid) + ") on CPU 0");
}

std::string ServerCpu::describe() const {
  if (!split_) return "server and clients share all " + std::to_string(cpus_) + " CPUs";
  return "server on CPU 0, clients on CPU" +
         (cpus_ == 2 ? std::string(" 1") : "s 1-" + std::to_string(cpus_ - 1));
}

double process_cpu_seconds(int pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  // The command name, in parentheses, may hold spaces: the fields are counted after it.
  const auto close = text.rfind(')');
  if (close == std::string::npos) throw std::runtime_error("cannot read /proc/<pid>/stat");
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  unsigned long long utime = 0;
  unsigned long long stime = 0;
  // Fields 3..13 (state .. cmajflt) come before utime (14) and stime (15).
  for (int i = 3; i <= 13; ++i) fields >> field;
  fields >> utime >> stime;
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace distlock::bench
