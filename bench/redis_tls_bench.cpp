// SPDX-License-Identifier: Apache-2.0
// redis_tls_bench: what TLS costs a lock. One redis-server listens in the clear and over TLS
// (the test CA's certificates, test/support/tls_files.h); one client of each kind runs
// uncontended acquire+release cycles on its own lock name, alternating, and
//
//     ratio = rediss:// cycles/s ÷ redis:// cycles/s          goal: ≥ 0.85
//
// Then the time Client::connect takes with each (the TLS handshake is the difference), the
// median of --connects.
//
//   redis_tls_bench [--cycles N] [--rounds N] [--connects N] [--quick] [--require-goal]
//                   [--shared-cores]
#include <distlock/distlock.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "redis_reference.h"
#include "redis_server.h"
#include "server_cpu.h"
#include "tls_files.h"

namespace {

constexpr double kGoal = 0.85;

struct Settings {
  int cycles = 20000;
  int warmup = 2000;
  int rounds = 5;
  int connects = 50;
  bool require_goal = false;
  bool shared_cores = false;
};

int parse_count(const char* flag, const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 100'000'000) {
    std::fprintf(stderr, "redis_tls_bench: bad value for %s: %s\n", flag, text);
    std::exit(2);
  }
  return static_cast<int>(value);
}

Settings parse_args(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "redis_tls_bench: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--cycles") {
      settings.cycles = parse_count(argv[i], value());
    } else if (arg == "--rounds") {
      settings.rounds = parse_count(argv[i], value());
    } else if (arg == "--connects") {
      settings.connects = parse_count(argv[i], value());
    } else if (arg == "--require-goal") {
      settings.require_goal = true;
    } else if (arg == "--shared-cores") {
      settings.shared_cores = true;
    } else if (arg == "--quick") {
      settings.cycles = 2000;
      settings.warmup = 200;
      settings.rounds = 1;
      settings.connects = 10;
    } else {
      std::fprintf(stderr,
                   "usage: redis_tls_bench [--cycles N] [--rounds N] [--connects N] [--quick] "
                   "[--require-goal] [--shared-cores]\n");
      std::exit(2);
    }
  }
  settings.warmup = std::min(settings.warmup, settings.cycles);
  return settings;
}

// Client::connect to `url`, and its first acquisition (a new client connects lazily where it
// can): the median time, in ms.
double connect_ms(const std::string& url, int connects) {
  std::vector<double> times;
  for (int i = 0; i < connects; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto client = distlock::Client::connect(url);
    (void)client->try_acquire(distlock::spec("bench-connect", std::chrono::seconds(30)), "c");
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  return distlock::bench::median(times);
}

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse_args(argc, argv);
  try {
    const distlock::testing::TlsFiles& files = distlock::testing::tls_files();
    const distlock::bench::ServerCpu server_cpu(settings.shared_cores);
    const std::uint16_t tls_port = distlock::testing::free_loopback_port();
    distlock::testing::RedisServer server(
        {"--tls-port", std::to_string(tls_port), "--tls-cert-file",
         files.server.certificate.string(), "--tls-key-file", files.server.key.string(),
         "--tls-ca-cert-file", files.ca.string(), "--tls-auth-clients", "no"});
    server_cpu.place_server(server.pid());
    const std::string plain_url = server.url();
    const std::string tls_url =
        "rediss://127.0.0.1:" + std::to_string(tls_port) + "?cacert=" + files.ca.string();
    std::printf("redis_tls_bench: one redis-server, port %u in the clear, %u over TLS; %s\n",
                static_cast<unsigned>(server.port()), static_cast<unsigned>(tls_port),
                server_cpu.describe().c_str());
    std::fflush(stdout);

    auto plain = distlock::Client::connect(plain_url);
    auto tls = distlock::Client::connect(tls_url);
    distlock::bench::cycles_per_second(*plain, settings.warmup, "plain");
    distlock::bench::cycles_per_second(*tls, settings.warmup, "tls");
    std::vector<double> plain_rates;
    std::vector<double> tls_rates;
    std::vector<double> ratios;
    for (int round = 0; round < settings.rounds; ++round) {
      plain_rates.push_back(distlock::bench::cycles_per_second(*plain, settings.cycles, "plain"));
      tls_rates.push_back(distlock::bench::cycles_per_second(*tls, settings.cycles, "tls"));
      ratios.push_back(tls_rates.back() / plain_rates.back());
      std::printf("  round %d: %8.0f cycles/s redis://, %8.0f rediss://, ratio %.2f\n", round + 1,
                  plain_rates.back(), tls_rates.back(), ratios.back());
      std::fflush(stdout);
    }
    const double ratio = distlock::bench::median(ratios);
    const double plain_connect = connect_ms(plain_url, settings.connects);
    const double tls_connect = connect_ms(tls_url, settings.connects);

    std::printf("\n");
    std::printf("  %-44s %12.0f   (%d cycles x %d rounds, median)\n", "redis:// cycles/s",
                distlock::bench::median(plain_rates), settings.cycles, settings.rounds);
    std::printf("  %-44s %12.0f\n", "rediss:// cycles/s", distlock::bench::median(tls_rates));
    std::printf("  %-44s %12.2f   (goal >= %.2f: %s)\n", "ratio = rediss:// / redis://, median",
                ratio, kGoal, ratio >= kGoal ? "met" : "NOT met");
    std::printf("  %-44s %12.2f ms  (median of %d)\n", "connect + first acquisition, redis://",
                plain_connect, settings.connects);
    std::printf("  %-44s %12.2f ms\n", "connect + first acquisition, rediss://", tls_connect);
    std::printf("  %-44s %12.2f ms\n", "the TLS handshakes of a connect (difference)",
                tls_connect - plain_connect);
    std::fflush(stdout);
    return settings.require_goal && ratio < kGoal ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "redis_tls_bench: %s\n", e.what());
    return 1;
  }
}
