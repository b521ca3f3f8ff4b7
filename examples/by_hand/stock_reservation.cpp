// SPDX-License-Identifier: Apache-2.0
// stock_reservation: reserving stock under a distributed lock, using the runtime by hand.
//
// Worker processes, each with several threads, reserve items of a few SKUs. The stock of a
// SKU lives in a plain file that they read, change and write back: a read-modify-write that
// loses updates unless the writers exclude each other. Each reservation therefore runs under
//
//     client->acquire(distlock::spec("stock", 10s, distlock::wait(5s)), sku)
//
// and its write goes through distlock::checked(), which undoes it if the lease ran out
// meanwhile. The file also keeps the fencing token of its last writer and refuses a write
// with a token that is not larger: the resource-side defence against a stale holder.
// At the end the program counts lost updates (stock taken from the files vs. reservations
// the workers made): with the lock there must be none.
//
//   stock_reservation [URL] [--processes N] [--threads N] [--reservations N] [--skus N]
//                     [--work-us N] [--unlocked]
//
// URL: the first argument, else $DISTLOCK_URL, else memory:// (in-process, which admits one
// worker process only). --unlocked skips the lock, to show the lost updates it prevents.
// Exit status: 0 when no update was lost (always 0 with --unlocked), 1 otherwise, 2 for usage.
#include <distlock/distlock.h>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// The lock every reservation takes, one per SKU: "stock:<sku>".
constexpr auto kStockLock = distlock::spec("stock", 10s, distlock::wait(5s));

constexpr long kInitialStock = 1'000'000;

struct Settings {
  std::string url;
  int processes = 2;
  int threads = 4;
  int reservations = 200;  // per thread
  int skus = 3;
  int work_us = 200;  // time between reading and writing the stock file
  bool unlocked = false;
  bool keep = false;
  fs::path dir;
};

// What one worker process did.
struct Tally {
  std::uint64_t done = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t lost_leases = 0;
  std::uint64_t stale_rejected = 0;
  std::uint64_t errors = 0;
  std::uint64_t leases = 0;
  std::uint64_t fence_min = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t fence_max = 0;
  std::uint64_t wait_us_total = 0;
  std::uint64_t wait_us_max = 0;
  std::uint64_t contended = 0;
  std::uint64_t woken_by_release = 0;
  std::uint64_t woken_by_timeout = 0;
  std::uint64_t renewals = 0;

  void add(const Tally& o) {
    done += o.done;
    timeouts += o.timeouts;
    lost_leases += o.lost_leases;
    stale_rejected += o.stale_rejected;
    errors += o.errors;
    leases += o.leases;
    fence_min = std::min(fence_min, o.fence_min);
    fence_max = std::max(fence_max, o.fence_max);
    wait_us_total += o.wait_us_total;
    wait_us_max = std::max(wait_us_max, o.wait_us_max);
    contended += o.contended;
    woken_by_release += o.woken_by_release;
    woken_by_timeout += o.woken_by_timeout;
    renewals += o.renewals;
  }

  // "name value" lines: how a worker process hands its tally to the parent.
  std::map<std::string, std::uint64_t*> fields() {
    return {{"done", &done},
            {"timeouts", &timeouts},
            {"lost_leases", &lost_leases},
            {"stale_rejected", &stale_rejected},
            {"errors", &errors},
            {"leases", &leases},
            {"fence_min", &fence_min},
            {"fence_max", &fence_max},
            {"wait_us_total", &wait_us_total},
            {"wait_us_max", &wait_us_max},
            {"contended", &contended},
            {"woken_by_release", &woken_by_release},
            {"woken_by_timeout", &woken_by_timeout},
            {"renewals", &renewals}};
  }
};

// --- the protected resource: one small file per SKU --------------------------------------

struct StockRecord {
  long stock = 0;
  long reserved = 0;
  std::uint64_t last_fence = 0;  // fencing token of the last write
};

fs::path sku_file(const Settings& settings, int sku) {
  return settings.dir / ("SKU-" + std::to_string(1000 + sku) + ".stock");
}

StockRecord read_record(const fs::path& path) {
  std::ifstream in(path);
  StockRecord record;
  if (!(in >> record.stock >> record.reserved >> record.last_fence))
    throw std::runtime_error("unreadable stock file " + path.string());
  return record;
}

// Writes a temporary file and renames it over the old one, so a reader never sees half a
// record (and the unlocked mode shows lost updates, not torn files).
void write_record(const fs::path& path, const StockRecord& record) {
  std::ostringstream tmp_name;
  tmp_name << path.string() << ".tmp." << ::getpid() << "." << std::this_thread::get_id();
  const fs::path tmp = tmp_name.str();
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << record.stock << ' ' << record.reserved << ' ' << record.last_fence << '\n';
    if (!out.flush()) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, path);
}

// --- one worker process ------------------------------------------------------------------

// Reserves one item of `sku`; with a lease, under its protection. Returns false when the
// stock file refused the lease's fence.
bool reserve_one(const Settings& settings, int sku, const distlock::Lease* lease) {
  const fs::path path = sku_file(settings, sku);
  const StockRecord before = read_record(path);
  StockRecord after = before;
  after.stock -= 1;
  after.reserved += 1;
  if (lease != nullptr) {
    // The store's own check: a holder with an older token than the last writer is stale.
    if (lease->fence() <= before.last_fence) return false;
    after.last_fence = lease->fence();
  }
  // The work between the read and the write (pricing, payment, ...).
  std::this_thread::sleep_for(std::chrono::microseconds(settings.work_us));
  if (lease != nullptr) {
    // Write only while the lease is valid; if it ran out during the write, put the old
    // record back and throw LockLost.
    distlock::checked(
        *lease, [&] { write_record(path, after); }, [&] { write_record(path, before); });
  } else {
    write_record(path, after);
  }
  return true;
}

Tally run_thread(const Settings& settings, distlock::Client* client, unsigned seed) {
  Tally tally;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, settings.skus - 1);
  for (int i = 0; i < settings.reservations; ++i) {
    const int sku = pick(rng);
    const std::string sku_name = "SKU-" + std::to_string(1000 + sku);
    try {
      if (client == nullptr) {
        reserve_one(settings, sku, nullptr);
        ++tally.done;
        continue;
      }
      const auto start = std::chrono::steady_clock::now();
      distlock::Lease lease = client->acquire(kStockLock, sku_name);
      const auto waited = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count();
      tally.wait_us_total += static_cast<std::uint64_t>(waited);
      tally.wait_us_max = std::max(tally.wait_us_max, static_cast<std::uint64_t>(waited));
      ++tally.leases;
      tally.fence_min = std::min(tally.fence_min, lease.fence());
      tally.fence_max = std::max(tally.fence_max, lease.fence());

      if (reserve_one(settings, sku, &lease)) {
        ++tally.done;
      } else {
        ++tally.stale_rejected;
      }
      lease.release();  // throws LockLost if the server had let the lock go meanwhile
    } catch (const distlock::LockTimeout&) {
      ++tally.timeouts;
    } catch (const distlock::LockLost& e) {
      ++tally.lost_leases;
      std::fprintf(stderr, "stock_reservation: %s\n", e.what());
    } catch (const std::exception& e) {
      ++tally.errors;
      std::fprintf(stderr, "stock_reservation: %s\n", e.what());
      if (tally.errors >= 5) break;
    }
  }
  return tally;
}

Tally run_process(const Settings& settings, int process_index) {
  std::shared_ptr<distlock::Client> client;
  if (!settings.unlocked) client = distlock::Client::connect(settings.url);

  std::vector<Tally> tallies(static_cast<std::size_t>(settings.threads));
  std::vector<std::thread> threads;
  std::random_device random;
  for (int t = 0; t < settings.threads; ++t) {
    const unsigned seed = random() ^ static_cast<unsigned>(process_index * 7919 + t);
    threads.emplace_back([&, t, seed] {
      tallies[static_cast<std::size_t>(t)] = run_thread(settings, client.get(), seed);
    });
  }
  for (auto& thread : threads) thread.join();

  Tally total;
  for (const auto& tally : tallies) total.add(tally);
  if (client) {
    const distlock::ClientStats stats = client->stats();
    total.contended = stats.contended;
    total.woken_by_release = stats.woken_by_release;
    total.woken_by_timeout = stats.woken_by_timeout;
    total.renewals = stats.renewals;
  }
  return total;
}

fs::path result_file(const Settings& settings, int process_index) {
  return settings.dir / ("worker-" + std::to_string(process_index) + ".result");
}

void save_tally(const fs::path& path, Tally tally) {
  std::ofstream out(path);
  for (const auto& [name, value] : tally.fields()) out << name << ' ' << *value << '\n';
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

Tally load_tally(const fs::path& path) {
  Tally tally;
  auto fields = tally.fields();
  std::ifstream in(path);
  std::string name;
  std::uint64_t value = 0;
  std::size_t seen = 0;
  while (in >> name >> value) {
    if (auto it = fields.find(name); it != fields.end()) {
      *it->second = value;
      ++seen;
    }
  }
  if (seen != fields.size()) throw std::runtime_error("incomplete worker result " + path.string());
  return tally;
}

// --- the parent --------------------------------------------------------------------------

[[noreturn]] void usage(const char* message) {
  std::fprintf(stderr,
               "stock_reservation: %s\n"
               "usage: stock_reservation [URL] [--processes N] [--threads N] "
               "[--reservations N] [--skus N] [--work-us N] [--unlocked] [--keep]\n"
               "  URL defaults to $DISTLOCK_URL, else memory://\n",
               message);
  std::exit(2);
}

int parse_count(const char* flag, const char* text, int min) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < min || value > 1'000'000) {
    std::string message = std::string("bad value for ") + flag + ": " + text;
    usage(message.c_str());
  }
  return static_cast<int>(value);
}

Settings parse_args(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage((std::string(arg) + " needs a value").c_str());
      return argv[++i];
    };
    if (arg == "--processes")
      settings.processes = parse_count(argv[i], value(), 1);
    else if (arg == "--threads")
      settings.threads = parse_count(argv[i], value(), 1);
    else if (arg == "--reservations")
      settings.reservations = parse_count(argv[i], value(), 1);
    else if (arg == "--skus")
      settings.skus = parse_count(argv[i], value(), 1);
    else if (arg == "--work-us")
      settings.work_us = parse_count(argv[i], value(), 0);
    else if (arg == "--unlocked")
      settings.unlocked = true;
    else if (arg == "--keep")
      settings.keep = true;
    else if (arg == "-h" || arg == "--help")
      usage("reserves stock under a distributed lock");
    else if (!arg.empty() && arg[0] == '-')
      usage(("unknown option " + std::string(arg)).c_str());
    else if (settings.url.empty())
      settings.url = arg;
    else
      usage("more than one URL given");
  }
  if (settings.url.empty()) {
    const char* env = std::getenv("DISTLOCK_URL");
    settings.url = (env != nullptr && *env != '\0') ? env : "memory://";
  }
  return settings;
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings = parse_args(argc, argv);
  const bool in_process = settings.url.rfind("memory:", 0) == 0;
  if (in_process && settings.processes > 1) {
    std::printf("note: %s locks live in one process; using 1 worker process\n",
                settings.url.c_str());
    settings.processes = 1;
  }

  char dir_template[] = "/tmp/stock_reservation.XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) {
    std::perror("stock_reservation: mkdtemp");
    return 1;
  }
  settings.dir = dir_template;
  for (int sku = 0; sku < settings.skus; ++sku)
    write_record(sku_file(settings, sku), StockRecord{kInitialStock, 0, 0});

  std::printf("stock_reservation: %s, %d process%s x %d threads x %d reservations, %d SKUs%s\n",
              settings.unlocked ? "no lock" : settings.url.c_str(), settings.processes,
              settings.processes == 1 ? "" : "es", settings.threads, settings.reservations,
              settings.skus, settings.unlocked ? " (--unlocked)" : "");
  std::fflush(stdout);

  const auto start = std::chrono::steady_clock::now();
  Tally total;
  int failed_workers = 0;
  try {
    if (settings.processes == 1) {
      total = run_process(settings, 0);
    } else {
      // Fork before any client or thread exists: each worker connects on its own.
      std::vector<pid_t> children;
      for (int p = 0; p < settings.processes; ++p) {
        const pid_t pid = ::fork();
        if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
        if (pid == 0) {
          int status = 0;
          try {
            save_tally(result_file(settings, p), run_process(settings, p));
          } catch (const std::exception& e) {
            std::fprintf(stderr, "stock_reservation: worker %d: %s\n", p, e.what());
            status = 1;
          }
          std::fflush(nullptr);
          ::_exit(status);
        }
        children.push_back(pid);
      }
      for (std::size_t p = 0; p < children.size(); ++p) {
        int status = 0;
        while (::waitpid(children[p], &status, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
          ++failed_workers;
          continue;
        }
        total.add(load_tally(result_file(settings, static_cast<int>(p))));
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stock_reservation: %s\n", e.what());
    if (!settings.keep) fs::remove_all(settings.dir);
    return 1;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // What the files say happened.
  long taken = 0;
  long reserved = 0;
  for (int sku = 0; sku < settings.skus; ++sku) {
    const StockRecord record = read_record(sku_file(settings, sku));
    taken += kInitialStock - record.stock;
    reserved += record.reserved;
  }
  const long lost_updates = static_cast<long>(total.done) - taken;

  std::printf("  reservations done:       %llu in %.2f s (%.0f/s)\n",
              static_cast<unsigned long long>(total.done), seconds,
              seconds > 0 ? static_cast<double>(total.done) / seconds : 0.0);
  std::printf("  stock taken (files):     %ld (reserved counters: %ld)\n", taken, reserved);
  if (!settings.unlocked) {
    const double avg_wait_ms = total.leases == 0 ? 0.0
                                                 : static_cast<double>(total.wait_us_total) /
                                                       1000.0 / static_cast<double>(total.leases);
    std::printf(
        "  waited for the lock:     %llu of %llu acquisitions "
        "(woken by a release: %llu, by timeout: %llu)\n",
        static_cast<unsigned long long>(total.contended),
        static_cast<unsigned long long>(total.leases),
        static_cast<unsigned long long>(total.woken_by_release),
        static_cast<unsigned long long>(total.woken_by_timeout));
    std::printf("  acquire time:            avg %.2f ms, max %.2f ms\n", avg_wait_ms,
                static_cast<double>(total.wait_us_max) / 1000.0);
    std::printf("  timed out (wait 5s):     %llu\n",
                static_cast<unsigned long long>(total.timeouts));
    std::printf("  leases lost:             %llu\n",
                static_cast<unsigned long long>(total.lost_leases));
    if (total.leases > 0) {
      std::printf(
          "  fences seen:             %llu..%llu over %llu leases "
          "(stale fences refused by the store: %llu)\n",
          static_cast<unsigned long long>(total.fence_min),
          static_cast<unsigned long long>(total.fence_max),
          static_cast<unsigned long long>(total.leases),
          static_cast<unsigned long long>(total.stale_rejected));
    }
  }
  if (total.errors > 0 || failed_workers > 0)
    std::printf("  errors:                  %llu (failed worker processes: %d)\n",
                static_cast<unsigned long long>(total.errors), failed_workers);
  std::printf("  lost updates: %ld\n", lost_updates);

  if (!settings.keep) {
    fs::remove_all(settings.dir);
  } else {
    std::printf("  files kept in %s\n", settings.dir.c_str());
  }

  if (settings.unlocked) {
    std::printf("result: %s\n", lost_updates > 0 ? "updates were lost without the lock, as expected"
                                                 : "no update happened to be lost this time");
    return 0;
  }
  const bool ok = lost_updates == 0 && taken == reserved && total.stale_rejected == 0 &&
                  total.errors == 0 && failed_workers == 0 && total.done > 0;
  std::printf("result: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
