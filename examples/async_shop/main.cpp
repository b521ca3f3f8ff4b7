// SPDX-License-Identifier: Apache-2.0
// The async shop: coroutines on one thread reserve stock, one unit per reservation, each
// reservation a woven [[distlock::lock]] coroutine (reservations.h), while a heartbeat timer on
// the same thread measures how late the event loop runs. Prints what it did and the lost
// updates: reservations made minus the stock that went. Built unwoven (async_shop_unwoven),
// nothing locks and the interleaved coroutines lose updates.
//
//   async_shop [--url URL] [--coroutines N] [--reservations N] [--skus N] [--work-us N]
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <distlock/distlock.h>

#include "reservations.h"

namespace {

struct Settings {
  std::string url;  // empty: DISTLOCK_URL, else redis://127.0.0.1:6379
  int coroutines = 64;
  int reservations = 20;  // per coroutine
  int skus = 4;
  int work_us = 200;
};

Settings parse(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i];
    const std::string value = argv[i + 1];
    if (name == "--url") {
      settings.url = value;
    } else if (name == "--coroutines") {
      settings.coroutines = std::stoi(value);
    } else if (name == "--reservations") {
      settings.reservations = std::stoi(value);
    } else if (name == "--skus") {
      settings.skus = std::stoi(value);
    } else if (name == "--work-us") {
      settings.work_us = std::stoi(value);
    } else {
      throw std::invalid_argument("unknown option " + name);
    }
  }
  if (argc % 2 == 0) throw std::invalid_argument(std::string("no value for ") + argv[argc - 1]);
  return settings;
}

std::string sku_name(int index) { return "sku-" + std::to_string(index); }

}  // namespace

int main(int argc, char** argv) try {
  const Settings settings = parse(argc, argv);
  if (!settings.url.empty()) distlock::configure(settings.url);
  asio::io_context io;
  async_shop::Reservations shop(io, std::chrono::microseconds(settings.work_us));
  const int initial = settings.coroutines * settings.reservations;
  for (int i = 0; i < settings.skus; ++i) shop.stock(sku_name(i), initial);

  int made = 0;
  int finished = 0;
  int failed = 0;
  auto customer = [&](int id) -> asio::awaitable<void> {
    for (int i = 0; i < settings.reservations; ++i) {
      try {
        if (co_await shop.reserve(sku_name((id + i) % settings.skus), 1)) ++made;
      } catch (const std::exception& error) {
        if (failed++ == 0) std::fprintf(stderr, "async_shop: %s\n", error.what());
      }
    }
    ++finished;
  };

  // Every millisecond, how late the timer fires: the loop is blocked for that long.
  std::vector<long> lateness_us;
  auto heartbeat = [&]() -> asio::awaitable<void> {
    asio::steady_timer tick(io);
    while (finished < settings.coroutines) {
      const auto due = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
      tick.expires_at(due);
      co_await tick.async_wait(asio::use_awaitable);
      lateness_us.push_back(static_cast<long>(std::chrono::duration_cast<std::chrono::microseconds>(
                                                  std::chrono::steady_clock::now() - due)
                                                  .count()));
    }
  };

  const auto start = std::chrono::steady_clock::now();
  for (int id = 0; id < settings.coroutines; ++id) asio::co_spawn(io, customer(id), asio::detached);
  asio::co_spawn(io, heartbeat(), asio::detached);
  io.run();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  int taken = 0;
  for (int i = 0; i < settings.skus; ++i) taken += initial - shop.stock_of(sku_name(i));
  std::sort(lateness_us.begin(), lateness_us.end());
  const long p99 = lateness_us.empty() ? 0 : lateness_us[lateness_us.size() * 99 / 100];
  std::printf("coroutines %d on one thread, reservations made %d in %.2f s, failed %d\n",
              settings.coroutines, made, seconds, failed);
  std::printf("event loop lateness p99 %ld us\n", p99);
  std::printf("lost updates %d\n", made - taken);
  return failed == 0 ? 0 : 1;
} catch (const std::exception& error) {
  std::fprintf(stderr, "async_shop: %s\n", error.what());
  return 2;
}
