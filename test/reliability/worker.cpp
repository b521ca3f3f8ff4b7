// SPDX-License-Identifier: Apache-2.0
#include "worker.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <exception>
#include <future>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>

#include <distlock/distlock.h>

#include "fenced_store.h"

namespace distlock::reliability {
namespace {

// Set by signal handlers, which run on whichever thread the signal finds, and read by the
// workers' threads: atomics, lock-free so that a handler may touch them (a volatile
// sig_atomic_t only serves a handler and the thread it interrupted).
static_assert(std::atomic<bool>::is_always_lock_free);
// Set by SIGUSR1: this process's (first) worker acts out its role at its next chance.
std::atomic<bool> g_armed{false};
void on_arm(int) { g_armed = true; }
// Set by SIGUSR2: every worker ends after its current round.
std::atomic<bool> g_stop{false};
void on_stop(int) { g_stop = true; }

std::mutex g_stdout_mutex;

// The fence of the lease a thread of this process holds now, 0 when none does. Only the
// negative control of exclusion (--break exclusion) reads it: its workers update the store
// under another thread's lease, as a runtime that let one thread re-enter a lock another
// thread holds would have them do.
std::atomic<std::uint64_t> g_held_fence{0};

// A line to the coordinator (stdout is its pipe), written at once.
void tell(const std::string& line) {
  std::lock_guard lock(g_stdout_mutex);
  const std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

// The lease's documented drift allowance (lease.h: 1% of ttl + 2 ms): valid_until() less
// ttl plus this is the send time of the request that won the lock.
std::int64_t drift_allowance_ns(Millis ttl) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(ttl / 100 + Millis(2)).count();
}

std::int64_t ns_of(Millis d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

class Worker {
 public:
  Worker(const WorkerSettings& settings, int id, std::shared_ptr<distlock::Client> client)
      : settings_(settings),
        id_(id),
        client_(std::move(client)),
        store_(settings.store),
        log_(worker_log_path(settings.log_directory, id)),
        random_(std::random_device{}() ^ static_cast<unsigned>(id * 7919)) {}

  // False when the worker failed for a reason that is no fault's doing.
  bool run();
  std::uint64_t rounds() const { return rounds_; }

 private:
  void one_round(Clock::time_point deadline);
  // The lease of `spec`, as Client::acquire gives it or, with async_acquire, as the handler of
  // Client::acquire_async does; throws what either throws.
  distlock::Lease acquire(const distlock::LockSpec& spec);
  // --break exclusion: value + 1 under the fence of the lease another thread of this process
  // holds, without a lock of its own. False when no other thread holds one.
  bool update_under_borrowed_lease();
  Millis random_pause();
  void log_error(const char* kind, const std::string& what);
  // value + 1 through distlock::checked: "accepted", "rejected" (by the fence), "refused"
  // (checked found the lease invalid before the write), "undone" / "undo-rejected" (the
  // lease ran out while the write ran) or "rejected-lost" (both).
  const char* write_checked(const distlock::Lease& lease, std::uint64_t fence, std::uint64_t value);
  // The negative control of checked(): straight to the store, whatever the lease says.
  const char* write_unchecked(std::uint64_t fence, std::uint64_t value);

  const WorkerSettings& settings_;
  const int id_;
  std::shared_ptr<distlock::Client> client_;
  FencedStore store_;
  EventLog log_;
  std::mt19937_64 random_;
  std::uint64_t rounds_ = 0;
};

void Worker::log_error(const char* kind, const std::string& what) {
  log_.write(
      EventLine("error").add("w", id_).add("t", mono_ns()).add("kind", kind).add("what", what));
}

Millis Worker::random_pause() {
  std::uniform_int_distribution<int> percent(0, 99);
  if (percent(random_) < settings_.long_pause_percent) {
    // Longer than the renewal interval, sometimes longer than the ttl: only renewal keeps
    // such a holder valid. Without renewal (a negative control) always longer than the ttl.
    const long shortest = settings_.renew ? settings_.ttl.count() / 2 : settings_.ttl.count() + 50;
    std::uniform_int_distribution<long> long_pause(shortest, settings_.ttl.count() * 3 / 2);
    return Millis(long_pause(random_));
  }
  std::uniform_int_distribution<long> pause(0, settings_.pause.count());
  return Millis(pause(random_));
}

const char* Worker::write_checked(const distlock::Lease& lease, std::uint64_t fence,
                                  std::uint64_t value) {
  bool ran = false;
  const char* outcome = "accepted";
  try {
    const StoreWrite write = distlock::checked(
        lease,
        [&] {
          ran = true;
          return store_.write(id_, fence, value, value + 1);
        },
        [&](StoreWrite& done) {
          if (!done.accepted)
            outcome = "rejected-lost";
          else
            outcome = store_.undo(id_, fence, value + 1, value) ? "undone" : "undo-rejected";
        });
    if (!write.accepted) outcome = "rejected";
  } catch (const distlock::LockLost&) {
    if (!ran) outcome = "refused";
  }
  return outcome;
}

const char* Worker::write_unchecked(std::uint64_t fence, std::uint64_t value) {
  return store_.write(id_, fence, value, value + 1).accepted ? "accepted" : "rejected";
}

bool Worker::run() {
  const auto deadline = Clock::now() + settings_.run_time;
  try {
    while (!g_stop && Clock::now() < deadline) one_round(deadline);
    log_.write(EventLine("finish").add("w", id_).add("t", mono_ns()).add("rounds", rounds_));
    return true;
  } catch (const std::exception& e) {
    log_error("crash", e.what());
    std::cerr << "checker worker " << id_ << ": " << e.what() << "\n";
    return false;
  }
}

distlock::LockSpec spec_of(const WorkerSettings& settings) {
  auto spec = distlock::spec(std::string_view(settings.lock_type), settings.ttl,
                             distlock::wait(settings.wait), distlock::renew(settings.renew));
  switch (settings.kind) {
    case LockKindChoice::exclusive:
      break;
    case LockKindChoice::fair:
      spec.fair = true;
      break;
    case LockKindChoice::write:
      spec.mode = distlock::Mode::write;
      break;
    case LockKindChoice::one_permit:
      spec.permits = 1;
      break;
  }
  return spec;
}

bool Worker::update_under_borrowed_lease() {
  const std::uint64_t fence = g_held_fence.load();
  if (fence == 0) return false;
  const StoreRead read = store_.read(id_, fence);
  const char* outcome = "read-rejected";
  if (read.accepted) {
    std::this_thread::sleep_for(random_pause());
    outcome = write_unchecked(fence, read.value);
  }
  log_.write(EventLine("borrowed")
                 .add("w", id_)
                 .add("f", fence)
                 .add("t", mono_ns())
                 .add("outcome", outcome));
  return true;
}

distlock::Lease Worker::acquire(const distlock::LockSpec& spec) {
  if (!settings_.async_acquire) return client_->acquire(spec, settings_.lock_key);
  // The handler is called once, before get() returns: `granted` outlives it.
  std::promise<distlock::Lease> granted;
  client_->acquire_async(spec, settings_.lock_key,
                         [&granted](std::exception_ptr error, distlock::Lease lease) {
                           if (error)
                             granted.set_exception(error);
                           else
                             granted.set_value(std::move(lease));
                         });
  return granted.get_future().get();
}

void Worker::one_round(Clock::time_point deadline) {
  std::uniform_int_distribution<long> think(0, settings_.think.count());
  if (settings_.borrow_leases && std::bernoulli_distribution(0.5)(random_) &&
      update_under_borrowed_lease()) {
    std::this_thread::sleep_for(Millis(think(random_)));
    return;
  }
  const auto spec = spec_of(settings_);
  std::optional<distlock::Lease> lease;
  const std::int64_t asked = mono_ns();
  try {
    lease.emplace(acquire(spec));
  } catch (const distlock::LockTimeout& e) {
    log_error("timeout", e.what());
    return;
  } catch (const distlock::BackendUnavailable& e) {
    log_error("unavailable", e.what());
    // The server is down or cut off (a fault): try again shortly, not in a tight loop.
    std::this_thread::sleep_for(std::min<Clock::duration>(Millis(50), deadline - Clock::now()));
    return;
  }
  const std::int64_t granted = mono_ns();
  const std::uint64_t n = ++rounds_;
  const std::uint64_t fence = lease->fence();
  const Millis ttl = lease->ttl();
  const std::int64_t valid_until = to_ns(lease->valid_until());
  // The negative control of the validity margin: a lease logged as valid for longer than the
  // runtime says, as a runtime that overstated valid_until() would have it.
  const std::int64_t overstatement = ns_of(settings_.validity_overstatement);
  log_.write(EventLine("grant")
                 .add("w", id_)
                 .add("n", n)
                 .add("f", fence)
                 .add("asked", asked)
                 .add("sent", valid_until - ns_of(ttl) + drift_allowance_ns(ttl))
                 .add("t", granted)
                 .add("vu", valid_until + overstatement)
                 .add("ttl", static_cast<std::int64_t>(ttl.count()))
                 .add("wall", wall_minus_mono_ns()));

  // The first moment this holder learned that its lease was lost, by any channel.
  auto told = std::make_shared<std::atomic<std::int64_t>>(0);
  auto tell_lost = [told] {
    std::int64_t none = 0;
    told->compare_exchange_strong(none, mono_ns());
  };
  EventLog* log = &log_;
  const int id = id_;
  const Millis on_lost_delay = settings_.on_lost_delay;
  lease->on_lost([log, id, n, fence, tell_lost, on_lost_delay](const distlock::LockLost& lost) {
    // The negative control of the on_lost timing check: the worker hears of it late.
    std::this_thread::sleep_for(on_lost_delay);
    tell_lost();
    log->write(EventLine("lost")
                   .add("w", id)
                   .add("n", n)
                   .add("f", fence)
                   .add("t", mono_ns())
                   .add("why", lost.what()));
  });

  if (settings_.borrow_leases) g_held_fence = fence;
  const StoreRead read = store_.read(id_, fence);
  log_.write(EventLine("read")
                 .add("w", id_)
                 .add("n", n)
                 .add("f", fence)
                 .add("t", mono_ns())
                 .add("ok", read.accepted ? 1 : 0)
                 .add("value", read.value));

  bool post_fault = false;
  if (read.accepted) {
    const bool act = id_ == settings_.first_id && settings_.role != VictimRole::none && g_armed;
    if (act) {
      g_armed = false;
      switch (settings_.role) {
        case VictimRole::kill:
          tell("holding " + std::to_string(fence));
          // Works on while holding the lock, until the coordinator kills it (--break
          // recovery's delay of the kill stays below this: coordinator.cpp).
          std::this_thread::sleep_for(settings_.ttl * 4);
          break;
        case VictimRole::stop:
          tell("stopping " + std::to_string(fence));
          ::raise(SIGSTOP);
          log_.write(
              EventLine("resumed").add("w", id_).add("n", n).add("f", fence).add("t", mono_ns()));
          post_fault = true;
          break;
        case VictimRole::partition:
          tell("holding " + std::to_string(fence));
          // A piece of work that outlasts the lease while the coordinator stalls this
          // worker's connection: renewals cannot get through.
          std::this_thread::sleep_for(settings_.ttl * 2 + Millis(100));
          post_fault = true;
          break;
        case VictimRole::hold:
          tell("holding " + std::to_string(fence));
          // Work that only renewals can carry through, while the service fails under it.
          std::this_thread::sleep_for(settings_.ttl * 3 / 2);
          post_fault = true;
          break;
        case VictimRole::none:
          break;
      }
    } else {
      std::this_thread::sleep_for(random_pause());
    }

    const char* outcome = settings_.use_checked ? write_checked(*lease, fence, read.value)
                                                : write_unchecked(fence, read.value);
    if (std::string_view(outcome) != "accepted" && std::string_view(outcome) != "rejected")
      tell_lost();
    log_.write(EventLine("write")
                   .add("w", id_)
                   .add("n", n)
                   .add("f", fence)
                   .add("t", mono_ns())
                   .add("outcome", outcome)
                   .add("post", post_fault ? 1 : 0));

    // A holder that ignores the library's verdict: its stale write must meet the fence.
    if (post_fault && std::string_view(outcome) != "accepted") {
      const StoreWrite probe = store_.write(id_, fence, read.value, read.value + 1, StoreOp::probe);
      log_.write(EventLine("probe")
                     .add("w", id_)
                     .add("n", n)
                     .add("f", fence)
                     .add("t", mono_ns())
                     .add("outcome", probe.accepted ? "accepted" : "rejected"));
    }
  }

  if (settings_.borrow_leases) g_held_fence = 0;
  const std::int64_t release_at = mono_ns();
  const std::int64_t valid_until_end = to_ns(lease->valid_until()) + overstatement;
  const char* released = "ok";
  try {
    lease->release();
  } catch (const distlock::LockLost&) {
    tell_lost();
    released = "lost";
  } catch (const distlock::BackendUnavailable&) {
    released = "unavailable";
  }
  log_.write(EventLine("end")
                 .add("w", id_)
                 .add("n", n)
                 .add("f", fence)
                 .add("t", release_at)
                 .add("vu", valid_until_end)
                 .add("released", released)
                 .add("told", told->load())
                 .add("post", post_fault ? 1 : 0));
  // Work outside the lock: without it the releasing worker wins its own lock straight back
  // before the waiters, who must first hear of the release, can ask (the lock is not fair).
  std::this_thread::sleep_for(Millis(think(random_)));
}

}  // namespace

LockKindChoice lock_kind_from_name(const std::string& name) {
  if (name == "exclusive") return LockKindChoice::exclusive;
  if (name == "fair") return LockKindChoice::fair;
  if (name == "write") return LockKindChoice::write;
  if (name == "permits1") return LockKindChoice::one_permit;
  throw std::invalid_argument("unknown --kind '" + name + "' (exclusive, fair, write, permits1)");
}

std::string lock_kind_name(LockKindChoice kind) {
  switch (kind) {
    case LockKindChoice::exclusive:
      return "exclusive";
    case LockKindChoice::fair:
      return "fair";
    case LockKindChoice::write:
      return "write";
    case LockKindChoice::one_permit:
      return "permits1";
  }
  return "?";
}

VictimRole victim_role_from_name(const std::string& name) {
  if (name == "none") return VictimRole::none;
  if (name == "kill") return VictimRole::kill;
  if (name == "stop") return VictimRole::stop;
  if (name == "partition") return VictimRole::partition;
  if (name == "hold") return VictimRole::hold;
  throw std::invalid_argument("unknown victim role '" + name + "'");
}

std::string victim_role_name(VictimRole role) {
  switch (role) {
    case VictimRole::none:
      return "none";
    case VictimRole::kill:
      return "kill";
    case VictimRole::stop:
      return "stop";
    case VictimRole::partition:
      return "partition";
    case VictimRole::hold:
      return "hold";
  }
  return "none";
}

std::filesystem::path worker_log_path(const std::filesystem::path& directory, int id) {
  return directory / ("worker-" + std::to_string(id) + ".log");
}

std::vector<std::string> worker_arguments(const WorkerSettings& s) {
  return {"worker",
          "--first-id",
          std::to_string(s.first_id),
          "--threads",
          std::to_string(s.threads),
          "--shared-client",
          s.shared_client ? "1" : "0",
          "--async-acquire",
          s.async_acquire ? "1" : "0",
          "--url",
          s.url,
          "--type",
          s.lock_type,
          "--key",
          s.lock_key,
          "--kind",
          lock_kind_name(s.kind),
          "--store",
          s.store.string(),
          "--logs",
          s.log_directory.string(),
          "--ttl",
          std::to_string(s.ttl.count()),
          "--pause",
          std::to_string(s.pause.count()),
          "--long-pause-percent",
          std::to_string(s.long_pause_percent),
          "--think",
          std::to_string(s.think.count()),
          "--run-time",
          std::to_string(s.run_time.count()),
          "--wait",
          std::to_string(s.wait.count()),
          "--role",
          victim_role_name(s.role),
          "--renew",
          s.renew ? "1" : "0",
          "--use-checked",
          s.use_checked ? "1" : "0",
          "--on-lost-delay",
          std::to_string(s.on_lost_delay.count()) + "ms",
          "--borrow-leases",
          s.borrow_leases ? "1" : "0",
          "--validity-overstatement",
          std::to_string(s.validity_overstatement.count()) + "ms"};
}

WorkerSettings parse_worker_arguments(const std::vector<std::string>& args) {
  WorkerSettings s;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (i + 1 >= args.size()) throw std::invalid_argument("worker: " + flag + " needs a value");
    const std::string& value = args[++i];
    if (flag == "--first-id")
      s.first_id = std::stoi(value);
    else if (flag == "--threads")
      s.threads = std::stoi(value);
    else if (flag == "--shared-client")
      s.shared_client = value == "1";
    else if (flag == "--async-acquire")
      s.async_acquire = value == "1";
    else if (flag == "--url")
      s.url = value;
    else if (flag == "--type")
      s.lock_type = value;
    else if (flag == "--key")
      s.lock_key = value;
    else if (flag == "--kind")
      s.kind = lock_kind_from_name(value);
    else if (flag == "--store")
      s.store = value;
    else if (flag == "--logs")
      s.log_directory = value;
    else if (flag == "--ttl")
      s.ttl = parse_duration(value);
    else if (flag == "--pause")
      s.pause = parse_duration(value);
    else if (flag == "--long-pause-percent")
      s.long_pause_percent = std::stoi(value);
    else if (flag == "--think")
      s.think = parse_duration(value);
    else if (flag == "--run-time")
      s.run_time = parse_duration(value);
    else if (flag == "--wait")
      s.wait = parse_duration(value);
    else if (flag == "--role")
      s.role = victim_role_from_name(value);
    else if (flag == "--renew")
      s.renew = value == "1";
    else if (flag == "--use-checked")
      s.use_checked = value == "1";
    else if (flag == "--on-lost-delay")
      s.on_lost_delay = parse_duration(value);
    else if (flag == "--borrow-leases")
      s.borrow_leases = value == "1";
    else if (flag == "--validity-overstatement")
      s.validity_overstatement = parse_duration(value);
    else
      throw std::invalid_argument("worker: unknown option " + flag);
  }
  if (s.url.empty() || s.store.empty() || s.log_directory.empty())
    throw std::invalid_argument("worker: --url, --store and --logs are required");
  if (s.threads < 1) throw std::invalid_argument("worker: --threads must be at least 1");
  return s;
}

int run_worker_process(const WorkerSettings& settings) {
  struct sigaction arm {};
  arm.sa_handler = on_arm;
  sigemptyset(&arm.sa_mask);
  arm.sa_flags = SA_RESTART;
  ::sigaction(SIGUSR1, &arm, nullptr);
  struct sigaction stop {};
  stop.sa_handler = on_stop;
  sigemptyset(&stop.sa_mask);
  stop.sa_flags = SA_RESTART;
  ::sigaction(SIGUSR2, &stop, nullptr);

  // The runtime's own messages (lost leases, failed renewals) go to a log beside the
  // workers', not to the test's output.
  auto runtime_log = std::make_shared<EventLog>(
      settings.log_directory / ("runtime-" + std::to_string(settings.first_id) + ".log"));
  distlock::set_logger([runtime_log](distlock::LogLevel level, std::string_view message) {
    const char* name = level == distlock::LogLevel::error     ? "error"
                       : level == distlock::LogLevel::warning ? "warning"
                       : level == distlock::LogLevel::info    ? "info"
                                                              : "debug";
    runtime_log->write(
        EventLine("runtime").add("t", mono_ns()).add("level", name).add("msg", message));
  });

  std::vector<std::unique_ptr<Worker>> workers;
  std::shared_ptr<distlock::Client> shared;
  if (settings.shared_client) shared = distlock::Client::connect(settings.url);
  for (int i = 0; i < settings.threads; ++i) {
    auto client = shared ? shared : distlock::Client::connect(settings.url);
    workers.push_back(std::make_unique<Worker>(settings, settings.first_id + i, std::move(client)));
  }
  tell("ready");

  std::atomic<bool> all_ok{true};
  if (workers.size() == 1) {
    if (!workers[0]->run()) all_ok = false;
  } else {
    std::vector<std::thread> threads;
    for (auto& worker : workers)
      threads.emplace_back([&all_ok, &worker] {
        if (!worker->run()) all_ok = false;
      });
    for (auto& thread : threads) thread.join();
  }
  std::uint64_t rounds = 0;
  for (const auto& worker : workers) rounds += worker->rounds();
  tell("done " + std::to_string(rounds));
  workers.clear();
  distlock::set_logger({});
  return all_ok ? 0 : 1;
}

}  // namespace distlock::reliability
