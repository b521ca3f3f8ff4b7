// SPDX-License-Identifier: Apache-2.0
#include "faults.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "subprocess.h"
#include "tcp_proxy.h"

namespace distlock::reliability {
namespace {

using testing::Subprocess;

// Arms the victim (SIGUSR1) and waits for its announcement "<word> <fence>".
std::uint64_t await_victim(FaultContext& context, const std::string& word) {
  if (context.victim == nullptr) throw std::logic_error("no victim for this fault");
  const std::string who = "worker " + std::to_string(context.victim_id);
  context.victim->kill(SIGUSR1);
  const auto deadline = Clock::now() + context.patience;
  for (;;) {
    const auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
    if (left.count() <= 0) break;
    const auto line = context.victim->read_line(left);
    if (!line) throw std::runtime_error(who + " exited before it announced '" + word + "'");
    if (line->rfind(word + " ", 0) == 0) return std::stoull(line->substr(word.size() + 1));
  }
  throw std::runtime_error(who + " did not announce '" + word + "' within " +
                           std::to_string(context.patience.count()) + " ms");
}

class NoFault final : public Fault {
 public:
  std::string name() const override { return "none"; }
  bool applies_to(const LockService&) const override { return true; }
  FaultRecord apply(FaultContext&) override { return FaultRecord(name()); }
};

class KillHolder final : public Fault {
 public:
  std::string name() const override { return "kill-holder"; }
  bool applies_to(const LockService& service) const override { return !service.in_process(); }
  VictimRole victim_role() const override { return VictimRole::kill; }
  // A killed worker stays dead: each injection takes the next one.
  int victim_for(int injection) const override { return injection; }
  FaultRecord apply(FaultContext& context) override {
    FaultRecord record(name());
    record.victim = context.victim_id;
    record.victim_fence = await_victim(context, "holding");
    record.start_ns = mono_ns();
    // --break recovery: the holder hangs from here on, and its renewals keep its lock.
    std::this_thread::sleep_for(context.kill_delay);
    context.victim->kill(SIGKILL);
    const auto status = context.victim->wait(std::chrono::seconds(30));
    record.end_ns = mono_ns();
    record.applied = status.signaled && status.signal == SIGKILL;
    record.detail = "worker " + std::to_string(context.victim_id) + " " + status.describe() +
                    " holding fence " + std::to_string(record.victim_fence);
    return record;
  }
};

class StopHolder final : public Fault {
 public:
  std::string name() const override { return "stop-holder"; }
  bool applies_to(const LockService& service) const override { return !service.in_process(); }
  VictimRole victim_role() const override { return VictimRole::stop; }
  FaultRecord apply(FaultContext& context) override {
    FaultRecord record(name());
    record.victim = context.victim_id;
    record.victim_fence = await_victim(context, "stopping");
    // The worker stops itself right after its announcement; wait for the kernel to say so.
    siginfo_t info{};
    int rc;
    do {
      rc = ::waitid(P_PID, static_cast<id_t>(context.victim->pid()), &info, WSTOPPED | WNOWAIT);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0)
      throw std::system_error(errno, std::generic_category(), "waitid (worker 0 stopped)");
    if (info.si_code != CLD_STOPPED)
      throw std::runtime_error("worker 0 ended instead of stopping (si_code " +
                               std::to_string(info.si_code) + ")");
    record.start_ns = mono_ns();
    // The pause itself is the fault: longer than the service keeps a silent holder's lock.
    std::this_thread::sleep_for(context.hold_off);
    context.victim->kill(SIGCONT);
    record.end_ns = mono_ns();
    record.applied = true;
    record.detail = "worker 0 stopped for " + format_ns(record.end_ns - record.start_ns) +
                    " holding fence " + std::to_string(record.victim_fence);
    return record;
  }
};

class RestartServer final : public Fault {
 public:
  std::string name() const override { return "restart-server"; }
  bool applies_to(const LockService& service) const override {
    return service.backend() == "redis" || service.backend() == "zookeeper" ||
           service.backend() == "etcd" || service.backend() == "postgresql";
  }
  VictimRole victim_role() const override { return VictimRole::hold; }
  FaultRecord apply(FaultContext& context) override {
    FaultRecord record(name());
    // While worker 0 holds the lock and works on, relying on renewals.
    record.victim = context.victim_id;
    record.victim_fence = await_victim(context, "holding");
    const auto restart = context.service.restart();
    record.start_ns = restart.stopped_at;
    record.end_ns = restart.serving_at;
    record.applied = true;
    record.detail = "server crashed (SIGKILL) while worker 0 held fence " +
                    std::to_string(record.victim_fence) + ", served again after " +
                    format_ns(restart.serving_at - restart.stopped_at);
    return record;
  }
};

class KillLeader final : public Fault {
 public:
  std::string name() const override { return "kill-leader"; }
  bool applies_to(const LockService& service) const override {
    return service.backend() == "zookeeper-ensemble" || service.backend() == "redis-sentinel" ||
           service.backend() == "redis-sentinel-async" || service.backend() == "redis-redlock" ||
           service.backend() == "redis-cluster" || service.backend() == "etcd-cluster";
  }
  VictimRole victim_role() const override { return VictimRole::hold; }
  FaultRecord apply(FaultContext& context) override {
    FaultRecord record(name());
    // The server a previous injection killed comes back first: one failure at a time.
    if (context.injection > 0) context.service.restore();
    record.victim = context.victim_id;
    record.victim_fence = await_victim(context, "holding");
    const auto kill = context.service.kill_leader();
    record.start_ns = kill.killed_at;
    record.end_ns = mono_ns();
    record.applied = true;
    record.detail = "server " + std::to_string(kill.index) +
                    " (the leader, or the Redis master) SIGKILLed, not restarted, while worker "
                    "0 held fence " +
                    std::to_string(record.victim_fence);
    return record;
  }
};

class Partition final : public Fault {
 public:
  std::string name() const override { return "partition"; }
  bool applies_to(const LockService& service) const override { return !service.ports().empty(); }
  VictimRole victim_role() const override { return VictimRole::partition; }
  void prepare(const FaultSetup& setup) override {
    for (const auto port : setup.service.ports())
      proxies_.push_back(std::make_unique<testing::TcpProxy>(port));
  }
  std::string worker_url(int id, const LockService& service) const override {
    if (id != 0) return service.url();
    std::vector<std::uint16_t> ports;
    for (const auto& proxy : proxies_) ports.push_back(proxy->port());
    return service.url_through(ports);
  }
  FaultRecord apply(FaultContext& context) override {
    FaultRecord record(name());
    record.victim = context.victim_id;
    record.victim_fence = await_victim(context, "holding");
    for (const auto& proxy : proxies_) proxy->freeze();
    record.start_ns = mono_ns();
    // The stall is the fault: nothing passes, nothing is closed.
    std::this_thread::sleep_for(context.hold_off);
    for (const auto& proxy : proxies_) proxy->thaw();
    record.end_ns = mono_ns();
    record.applied = true;
    record.detail = "worker 0's connections (to " + std::to_string(proxies_.size()) +
                    " server(s)) stalled for " + format_ns(record.end_ns - record.start_ns) +
                    " holding fence " + std::to_string(record.victim_fence);
    return record;
  }

 private:
  std::vector<std::unique_ptr<testing::TcpProxy>> proxies_;
};

// Writes `text` to `path` atomically (libfaketime rereads the file on every call).
void replace_file(const std::filesystem::path& path, const std::string& text) {
  const auto temporary = std::filesystem::path(path.string() + ".new");
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text << "\n";
    if (!out) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::filesystem::rename(temporary, path);
}

class ClockJump final : public Fault {
 public:
  static constexpr int kJumpSeconds = 2 * 3600;

  std::string name() const override { return "clock-jump"; }
  bool applies_to(const LockService&) const override { return true; }
  void prepare(const FaultSetup& setup) override {
    library_ = libfaketime_path();
    if (library_.empty())
      throw std::runtime_error(
          "libfaketime not found ($DISTLOCK_LIBFAKETIME, /usr/lib/<arch>/faketime/"
          "libfaketimeMT.so.1); Debian: apt-get install faketime");
    env_ = testing::find_program("env");
    if (env_.empty()) throw std::runtime_error("env not found");
    for (int id = 0; id < setup.processes; ++id) {
      files_.push_back(setup.directory / ("faketime-" + std::to_string(id)));
      replace_file(files_.back(), "+0");
    }
  }
  std::vector<std::string> launcher(int id) const override {
    return {env_.string(), "LD_PRELOAD=" + library_.string(),
            // Only the wall clock is faked: CLOCK_MONOTONIC stays the machine's.
            "FAKETIME_DONT_FAKE_MONOTONIC=1",
            "FAKETIME_TIMESTAMP_FILE=" + files_.at(static_cast<std::size_t>(id)).string(),
            "FAKETIME_NO_CACHE=1"};
  }
  // Even injections jump away (+2 h for worker 0, -2 h for worker 1), odd ones back.
  FaultRecord apply(FaultContext& context) override {
    FaultRecord record(name());
    const bool away = context.injection % 2 == 0;
    record.start_ns = mono_ns();
    replace_file(files_.at(0), away ? "+" + std::to_string(kJumpSeconds) : "+0");
    if (files_.size() > 1)
      replace_file(files_.at(1), away ? "-" + std::to_string(kJumpSeconds) : "+0");
    record.end_ns = mono_ns();
    record.applied = true;
    if (!away)
      record.detail = "wall clocks back to the real time";
    else if (files_.size() > 1)
      record.detail = "wall clock of worker 0 +2 h, of worker 1 -2 h";
    else
      record.detail = "wall clock of the workers' process +2 h";
    record.detail += " (libfaketime; monotonic clock not faked)";
    return record;
  }

 private:
  std::filesystem::path library_;
  std::filesystem::path env_;
  std::vector<std::filesystem::path> files_;
};

}  // namespace

std::string Fault::worker_url(int, const LockService& service) const { return service.url(); }
std::vector<std::string> Fault::launcher(int) const { return {}; }

std::unique_ptr<Fault> make_fault(const std::string& name) {
  if (name == "none") return std::make_unique<NoFault>();
  if (name == "kill-holder") return std::make_unique<KillHolder>();
  if (name == "stop-holder") return std::make_unique<StopHolder>();
  if (name == "restart-server") return std::make_unique<RestartServer>();
  if (name == "kill-leader") return std::make_unique<KillLeader>();
  if (name == "partition") return std::make_unique<Partition>();
  if (name == "clock-jump") return std::make_unique<ClockJump>();
  throw std::invalid_argument("unknown fault '" + name + "'");
}

std::vector<std::string> fault_names() {
  return {"none",        "kill-holder", "stop-holder", "restart-server",
          "kill-leader", "partition",   "clock-jump"};
}

std::filesystem::path libfaketime_path() {
  std::vector<std::filesystem::path> candidates;
  if (const char* chosen = std::getenv("DISTLOCK_LIBFAKETIME");
      chosen != nullptr && *chosen != '\0')
    return std::filesystem::exists(chosen) ? std::filesystem::path(chosen)
                                           : std::filesystem::path{};
#ifdef DISTLOCK_CHECKER_LIBFAKETIME
  candidates.emplace_back(DISTLOCK_CHECKER_LIBFAKETIME);
#endif
  for (const char* arch : {"x86_64-linux-gnu", "aarch64-linux-gnu"})
    candidates.push_back(std::filesystem::path("/usr/lib") / arch / "faketime/libfaketimeMT.so.1");
  candidates.emplace_back("/usr/lib/faketime/libfaketimeMT.so.1");
  candidates.emplace_back("/usr/local/lib/faketime/libfaketimeMT.so.1");
  for (const auto& candidate : candidates) {
    std::error_code ec;
    if (!candidate.empty() && std::filesystem::exists(candidate, ec)) return candidate;
  }
  return {};
}

}  // namespace distlock::reliability
