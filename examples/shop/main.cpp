// SPDX-License-Identifier: Apache-2.0
// The shop example: several service processes reserve stock at once.
//
//   shop run [--url URL] [--processes N] [--reservations N] [--skus N] [--work-us N]
//
// starts the worker processes (this same program, `shop worker ...`), waits for them and
// prints what happened: reservations done, how many waited for a lock, and lost updates
// (stock taken that the store does not show). Built through distlock_weave(), every
// reservation runs under a lock per SKU and no update is lost; built without weaving
// (shop_unwoven), the same code loses updates.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <distlock/distlock.h>

#include "inventory.h"
#include "stock_store.h"

extern char** environ;

namespace {

struct Settings {
  std::string url;
  std::string store;
  std::string result;
  int processes = 4;
  int reservations = 100;
  int skus = 3;
  int work_us = 2000;
  unsigned seed = 1;
};

Settings parse(int argc, char** argv, int first) {
  Settings settings;
  const char* from_environment = std::getenv("DISTLOCK_URL");
  settings.url = from_environment != nullptr ? from_environment : "redis://127.0.0.1:6379";
  for (int i = first; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--url")
      settings.url = value;
    else if (flag == "--store")
      settings.store = value;
    else if (flag == "--result")
      settings.result = value;
    else if (flag == "--processes")
      settings.processes = std::stoi(value);
    else if (flag == "--reservations")
      settings.reservations = std::stoi(value);
    else if (flag == "--skus")
      settings.skus = std::stoi(value);
    else if (flag == "--work-us")
      settings.work_us = std::stoi(value);
    else if (flag == "--seed")
      settings.seed = static_cast<unsigned>(std::stoul(value));
    else
      throw std::invalid_argument("unknown option " + flag);
  }
  if (settings.processes < 1 || settings.reservations < 1 || settings.skus < 1 ||
      settings.work_us < 0)
    throw std::invalid_argument("--processes, --reservations and --skus must be positive");
  return settings;
}

std::string sku_name(int index) { return "sku-" + std::to_string(index); }

struct WorkerResult {
  long reservations = 0;
  long waited = 0;
  long locks = 0;
  long stale_writes = 0;
};

int worker(const Settings& settings) {
  distlock::configure(settings.url);
  shop::StockStore store(settings.store);
  shop::Inventory inventory(store, std::chrono::microseconds(settings.work_us));
  std::mt19937 random(settings.seed);
  std::uniform_int_distribution<int> pick(0, settings.skus - 1);
  WorkerResult result;
  for (int i = 0; i < settings.reservations; ++i) {
    try {
      if (inventory.reserve(shop::Item{sku_name(pick(random))}, 1)) ++result.reservations;
    } catch (const shop::StaleWrite&) {
      ++result.stale_writes;
    }
  }
  const distlock::ClientStats stats = distlock::default_client().stats();
  result.waited = static_cast<long>(stats.contended);
  result.locks = static_cast<long>(stats.acquired);
  std::ofstream out(settings.result);
  out << result.reservations << ' ' << result.waited << ' ' << result.locks << ' '
      << result.stale_writes << '\n';
  return out ? 0 : 1;
}

pid_t spawn_worker(const Settings& settings, int index) {
  std::vector<std::string> args = {
      "shop",           "worker",
      "--url",          settings.url,
      "--store",        settings.store,
      "--result",       settings.store + "/worker-" + std::to_string(index) + ".result",
      "--reservations", std::to_string(settings.reservations),
      "--skus",         std::to_string(settings.skus),
      "--work-us",      std::to_string(settings.work_us),
      "--seed",         std::to_string(settings.seed + static_cast<unsigned>(index))};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot start a worker process");
  return pid;
}

int run(Settings settings) {
  const bool own_store = settings.store.empty();
  if (own_store) {
    char pattern[] = "/tmp/distlock-shop.XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("cannot make a store directory");
    settings.store = pattern;
  }
  shop::StockStore store(settings.store);
  // Enough stock that no reservation finds the shelf empty.
  const int initial = settings.processes * settings.reservations;
  for (int i = 0; i < settings.skus; ++i) store.create(sku_name(i), initial);

  std::vector<pid_t> workers;
  for (int i = 0; i < settings.processes; ++i) workers.push_back(spawn_worker(settings, i));
  bool workers_ok = true;
  for (const pid_t pid : workers) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    workers_ok = workers_ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  if (!workers_ok) {
    std::fprintf(stderr, "shop: a worker failed\n");
    return 1;
  }

  WorkerResult total;
  for (int i = 0; i < settings.processes; ++i) {
    std::ifstream in(settings.store + "/worker-" + std::to_string(i) + ".result");
    WorkerResult one;
    in >> one.reservations >> one.waited >> one.locks >> one.stale_writes;
    total.reservations += one.reservations;
    total.waited += one.waited;
    total.locks += one.locks;
    total.stale_writes += one.stale_writes;
  }
  long taken = 0;
  for (int i = 0; i < settings.skus; ++i) taken += initial - store.quantity(sku_name(i));
  const long lost = total.reservations - taken;
  if (own_store) std::filesystem::remove_all(settings.store);

  std::printf("%d processes x %d reservations of %d SKUs against %s\n", settings.processes,
              settings.reservations, settings.skus, settings.url.c_str());
  std::printf("  locks taken            %8ld%s\n", total.locks,
              total.locks == 0 ? "   (not woven: nothing locks)" : "");
  std::printf("  reservations done      %8ld\n", total.reservations);
  std::printf("  waited for a lock      %8ld\n", total.waited);
  std::printf("  stale writes refused   %8ld\n", total.stale_writes);
  std::printf("  lost updates           %8ld\n", lost);
  // Woven, a lost update is a failure; unwoven, it is what the example shows.
  return total.locks > 0 && lost != 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "run") return run(parse(argc, argv, 2));
    if (mode == "worker") return worker(parse(argc, argv, 2));
    std::fprintf(stderr,
                 "usage: shop run [--url URL] [--processes N] [--reservations N] [--skus N] "
                 "[--work-us N]\n");
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "shop: %s\n", error.what());
    return 1;
  }
}
