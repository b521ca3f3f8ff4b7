// SPDX-License-Identifier: Apache-2.0
// What naming a lock costs: escaping key parts and building "<type>:<part>:<part>".
#include <distlock/key.h>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

namespace {

void BM_EscapePlain(benchmark::State& state) {
  const std::string part = "alice-order-000042";
  for (auto _ : state) benchmark::DoNotOptimize(distlock::escape_name_part(part));
}
BENCHMARK(BM_EscapePlain);

void BM_EscapeSpecial(benchmark::State& state) {
  const std::string part = "eu:west/{shard}%7\xc3\xa9";
  for (auto _ : state) benchmark::DoNotOptimize(distlock::escape_name_part(part));
}
BENCHMARK(BM_EscapeSpecial);

void BM_KeyOfStringAndInt(benchmark::State& state) {
  const std::string user = "alice";
  const std::int64_t id = 42;
  for (auto _ : state) benchmark::DoNotOptimize(distlock::key_of(user, id));
}
BENCHMARK(BM_KeyOfStringAndInt);

void BM_LockName(benchmark::State& state) {
  const distlock::Key key = distlock::key_of(std::string("alice"), 42);
  for (auto _ : state) benchmark::DoNotOptimize(distlock::lock_name("order", key));
}
BENCHMARK(BM_LockName);

void BM_KeyOfAndLockName(benchmark::State& state) {
  const std::string user = "alice";
  for (auto _ : state) {
    benchmark::DoNotOptimize(distlock::lock_name("order", distlock::key_of(user, 42)));
  }
}
BENCHMARK(BM_KeyOfAndLockName);

}  // namespace
