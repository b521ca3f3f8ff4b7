// SPDX-License-Identifier: Apache-2.0
// What weaving costs at run time: a woven call against the same lock taken by hand with a
// Lease, on the same client. Google Benchmark measures CPU per call; on Redis the program
// also counts the server's commands per call from INFO commandstats (the woven guard must
// send no more than the hand-written code).
//
//   woven_call_bench [--redis] [Google Benchmark flags]
//     memory:// by default; --redis starts a private redis-server.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include <distlock/distlock.h>

#include "redis_server.h"

[[distlock::lock("bench", 30s)]]
int woven_call([[distlock::key]] int id) {
  return id;
}

int hand_written_call(int id) {
  static constexpr auto kSpec = distlock::spec("bench", std::chrono::seconds(30));
  const distlock::Lease lease = distlock::default_client().acquire(kSpec, id);
  return id;
}

namespace {

void BM_HandWrittenLease(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(hand_written_call(7));
}
void BM_WovenCall(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(woven_call(7));
}
BENCHMARK(BM_HandWrittenLease);
BENCHMARK(BM_WovenCall);

long evalsha_calls(const distlock::testing::RedisServer& server) {
  const std::string stats = server.cli({"INFO", "commandstats"});
  const auto at = stats.find("cmdstat_evalsha:calls=");
  return at == std::string::npos
             ? 0
             : std::stol(stats.substr(at + std::strlen("cmdstat_evalsha:calls=")));
}

template <class Call>
double commands_per_call(const distlock::testing::RedisServer& server, Call call) {
  constexpr int kCalls = 1000;
  const long before = evalsha_calls(server);
  for (int i = 0; i < kCalls; ++i) benchmark::DoNotOptimize(call(i));
  return static_cast<double>(evalsha_calls(server) - before) / kCalls;
}

}  // namespace

int main(int argc, char** argv) {
  const bool redis = argc > 1 && std::strcmp(argv[1], "--redis") == 0;
  if (redis) {
    argv[1] = argv[0];
    ++argv;
    --argc;
  }
  std::optional<distlock::testing::RedisServer> server;
  if (redis) server.emplace();
  distlock::configure(redis ? server->url() : "memory://");

  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  if (redis) {
    const double hand = commands_per_call(*server, hand_written_call);
    const double woven = commands_per_call(*server, woven_call);
    std::printf("Redis commands per call: hand-written %.2f, woven %.2f\n", hand, woven);
    return woven <= hand ? 0 : 1;
  }
  return 0;
}
