// SPDX-License-Identifier: Apache-2.0
// async_bench: acquiring without blocking a thread (distlock/asio.h) against the blocking API,
// on one private redis-server, in one run:
//
//   one coroutine      uncontended cycles of `co_await async_acquire` and the lease leaving its
//                      scope, ÷ the same cycles of Client::acquire on one thread (both: two
//                      scripts per cycle, the release not awaited)            goal: ≥ 0.9
//   64 coroutines      64 coroutines on one thread over 64 lock names, cycles/s, ÷ 8 threads of
//                      the blocking API over 8 names                         goal: ≥ 1.0
//   10,000 waiters     coroutines waiting on 100 fair locks held by the blocking API: the
//                      process's threads before and while they wait, its heap per waiter,
//                      every waiter granted, release notifications per handoff
//   lateness           p99 of a 1 ms timer on the coroutines' thread while 1,000 coroutines
//                      contend for 10 locks                                  goal: ≤ 2 ms
//
//   async_bench [--cycles N] [--rounds N] [--quick] [--shared-cores]
//
// Each ratio is the median over the rounds, both sides warmed up first and alternating which
// goes first. The server runs on CPU 0 and this process on the others (server_cpu.h), unless
// --shared-cores.
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <dirent.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <distlock/asio.h>
#include <distlock/distlock.h>

#include "redis_reference.h"
#include "redis_server.h"
#include "server_cpu.h"

using namespace std::chrono_literals;

namespace {

struct Settings {
  int cycles = 20000;
  int rounds = 5;
  int waiters = 10000;
  bool shared_cores = false;
};

Settings parse(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      settings.cycles = 3000;
      settings.rounds = 1;
      settings.waiters = 2000;
    } else if (arg == "--cycles" && i + 1 < argc) {
      settings.cycles = std::stoi(argv[++i]);
    } else if (arg == "--rounds" && i + 1 < argc) {
      settings.rounds = std::stoi(argv[++i]);
    } else if (arg == "--shared-cores") {
      settings.shared_cores = true;
    } else {
      throw std::invalid_argument(
          "usage: async_bench [--cycles N] [--rounds N] [--quick] [--shared-cores]");
    }
  }
  return settings;
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int thread_count() {
  int count = 0;
  if (DIR* tasks = ::opendir("/proc/self/task")) {
    while (const dirent* entry = ::readdir(tasks))
      if (entry->d_name[0] != '.') ++count;
    ::closedir(tasks);
  }
  return count;
}

// The bytes the process's allocations hold (malloc's count, not the pages it keeps): the
// attempts of 10,000 waiters pass through at once, and what they freed says nothing of what a
// waiter holds, though the pages stay resident.
double heap_bytes_in_use() {
  const struct mallinfo2 info = ::mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
}

// Cycles of `coroutines` coroutines on one thread, each on a lock name of its own.
double async_cycles_per_second(distlock::Client& client, int coroutines, int cycles_each) {
  asio::io_context io;
  int failed = 0;
  auto cycle = [&](int id) -> asio::awaitable<void> {
    const std::string key = "async-" + std::to_string(id);
    for (int i = 0; i < cycles_each; ++i) {
      try {
        distlock::Lease lease = co_await distlock::async_acquire(
            client, distlock::spec("bench", "30s"), key, asio::use_awaitable);
      } catch (const std::exception&) {
        ++failed;
      }
    }
  };
  const auto start = Clock::now();
  for (int id = 0; id < coroutines; ++id) asio::co_spawn(io, cycle(id), asio::detached);
  io.run();
  if (failed != 0) throw std::runtime_error(std::to_string(failed) + " async cycles failed");
  return coroutines * cycles_each / seconds_since(start);
}

// Cycles of `threads` threads of the blocking API, each on a lock name of its own.
double blocking_cycles_per_second(distlock::Client& client, int threads, int cycles_each) {
  std::vector<std::thread> workers;
  const auto start = Clock::now();
  for (int id = 0; id < threads; ++id)
    workers.emplace_back([&client, id, cycles_each] {
      const std::string key = "blocking-" + std::to_string(id);
      for (int i = 0; i < cycles_each; ++i)
        distlock::Lease lease = client.acquire(distlock::spec("bench", "30s"), key);
    });
  for (auto& worker : workers) worker.join();
  return threads * cycles_each / seconds_since(start);
}

void waiters(const std::string& url, int count) {
  auto client = distlock::Client::connect(url);
  constexpr int kLocks = 100;
  const auto fair_lock = distlock::spec("waiters", "60s", distlock::fair);
  std::vector<distlock::Lease> holders;
  for (int i = 0; i < kLocks; ++i) holders.push_back(client->acquire(fair_lock, std::to_string(i)));
  asio::io_context io;
  int granted = 0;
  double frame_bytes = 0;
  auto waiter = [&](int id) -> asio::awaitable<void> {
    distlock::Lease lease = co_await distlock::async_acquire(
        *client, fair_lock, std::to_string(id % kLocks), asio::use_awaitable);
    ++granted;
  };
  // The client's own thread starts with the first asynchronous acquisition.
  {
    asio::io_context warm;
    asio::co_spawn(
        warm,
        [&]() -> asio::awaitable<void> {
          distlock::Lease lease = co_await distlock::async_acquire(
              *client, distlock::spec("warm", "10s"), "0", asio::use_awaitable);
        },
        asio::detached);
    warm.run();
  }
  // The frames alone: as many coroutines parked on a timer, without distlock.
  const double bytes_before_parked = heap_bytes_in_use();
  {
    asio::io_context parking;
    asio::steady_timer never(parking, std::chrono::hours(1));
    int parked = 0;
    auto park = [&]() -> asio::awaitable<void> {
      ++parked;
      co_await never.async_wait(asio::use_awaitable);
    };
    for (int id = 0; id < count; ++id) asio::co_spawn(parking, park(), asio::detached);
    while (parked < count) parking.run_one();
    frame_bytes = (heap_bytes_in_use() - bytes_before_parked) / count;
  }
  const int threads_before = thread_count();
  const double bytes_before = heap_bytes_in_use();
  for (int id = 0; id < count; ++id) asio::co_spawn(io, waiter(id), asio::detached);
  // Runs the coroutines until each has asked once and waits; the client counts the waiters.
  const auto deadline = Clock::now() + 120s;
  while (client->stats().waiting < static_cast<std::uint64_t>(count) && Clock::now() < deadline)
    io.run_for(10ms);
  const int threads_waiting = thread_count();
  const double bytes_waiting = heap_bytes_in_use();
  const auto notifications_before = client->stats().notifications;
  const auto start = Clock::now();
  holders.clear();
  io.run();
  const double seconds = seconds_since(start);
  const auto notifications = client->stats().notifications - notifications_before;
  const double per_waiter = (bytes_waiting - bytes_before) / count;
  std::printf(
      "%d coroutines waiting on %d fair locks: threads %d before, %d while waiting; %.0f B of "
      "heap per waiter, %.0f B beyond a coroutine parked on a timer (goal <= 2048 B); "
      "granted %d of %d in %.2f s; %.2f release notifications per handoff\n",
      count, kLocks, threads_before, threads_waiting, per_waiter, per_waiter - frame_bytes, granted,
      count, seconds, static_cast<double>(notifications) / count);
}

void lateness(const std::string& url) {
  auto client = distlock::Client::connect(url);
  asio::io_context io;
  constexpr int kCoroutines = 1000;
  int finished = 0;
  auto contender = [&](int id) -> asio::awaitable<void> {
    for (int i = 0; i < 5; ++i) {
      distlock::Lease lease =
          co_await distlock::async_acquire(*client, distlock::spec("contended", "30s"),
                                           std::to_string(id % 10), asio::use_awaitable);
    }
    ++finished;
  };
  std::vector<double> late_us;
  auto heartbeat = [&]() -> asio::awaitable<void> {
    asio::steady_timer tick(io);
    while (finished < kCoroutines) {
      const auto due = Clock::now() + 1ms;
      tick.expires_at(due);
      co_await tick.async_wait(asio::use_awaitable);
      late_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - due).count());
    }
  };
  for (int id = 0; id < kCoroutines; ++id) asio::co_spawn(io, contender(id), asio::detached);
  asio::co_spawn(io, heartbeat(), asio::detached);
  io.run();
  std::sort(late_us.begin(), late_us.end());
  const double p99 = late_us.empty() ? 0 : late_us[late_us.size() * 99 / 100];
  std::printf(
      "lateness of a 1 ms timer on the thread of %d contending coroutines (10 locks): p99 %.0f "
      "us over %zu ticks (goal <= 2000 us)\n",
      kCoroutines, p99, late_us.size());
}

}  // namespace

int main(int argc, char** argv) try {
  const Settings settings = parse(argc, argv);
  const distlock::bench::ServerCpu server_cpu(settings.shared_cores);
  distlock::testing::RedisServer server;
  server_cpu.place_server(server.pid());
  std::printf("async_bench: %s\n", server_cpu.describe().c_str());
  auto client = distlock::Client::connect(server.url());
  // Both sides warmed up: the connections made, the async thread started, the scripts loaded.
  (void)blocking_cycles_per_second(*client, 8, 100);
  (void)async_cycles_per_second(*client, 64, 100);
  std::vector<double> one, many;
  double async_one = 0, blocking_one = 0, async_many = 0, blocking_many = 0;
  for (int round = 0; round < settings.rounds; ++round) {
    const bool blocking_first = round % 2 == 0;
    if (blocking_first) blocking_one = blocking_cycles_per_second(*client, 1, settings.cycles);
    async_one = async_cycles_per_second(*client, 1, settings.cycles);
    if (!blocking_first) blocking_one = blocking_cycles_per_second(*client, 1, settings.cycles);
    one.push_back(async_one / blocking_one);
    if (blocking_first) blocking_many = blocking_cycles_per_second(*client, 8, settings.cycles / 8);
    async_many = async_cycles_per_second(*client, 64, settings.cycles / 64);
    if (!blocking_first)
      blocking_many = blocking_cycles_per_second(*client, 8, settings.cycles / 8);
    many.push_back(async_many / blocking_many);
  }
  std::printf(
      "one coroutine: %.0f cycles/s; one thread, blocking: %.0f cycles/s (the last round); "
      "ratio %.2f (median of the rounds' %s; goal >= 0.9)\n",
      async_one, blocking_one, distlock::bench::median(one),
      distlock::bench::listed_ratios(one).c_str());
  std::printf(
      "64 coroutines on one thread: %.0f cycles/s; 8 blocking threads: %.0f cycles/s (the last "
      "round); ratio %.2f (median of the rounds' %s; goal >= 1.0)\n",
      async_many, blocking_many, distlock::bench::median(many),
      distlock::bench::listed_ratios(many).c_str());
  waiters(server.url(), settings.waiters);
  lateness(server.url());
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "async_bench: %s\n", error.what());
  return 1;
}
