// SPDX-License-Identifier: Apache-2.0
// postgres_bench: distlock's postgresql:// cycle against PostgreSQL's own floor, on one
// private server in the same run.
//
//   cycle   one client, one thread: acquire + release() of one lock, both awaited: two
//           statements, two round trips per cycle
//   floor   two `SELECT 1` round trips per cycle on one libpq connection, prepared as
//           distlock's statements are
//   ratio   cycles/s ÷ floor cycles/s                                  goal: ≥ 0.9
//
//   postgres_bench [--cycles N] [--rounds N] [--quick]
//
// Each ratio is the median over the rounds, the two sides alternating.
#include <libpq-fe.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <distlock/distlock.h>

#include "postgres_server.h"
#include "redis_reference.h"

namespace {

struct Settings {
  int cycles = 5000;
  int rounds = 5;
};

Settings parse(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      settings.cycles = 1000;
      settings.rounds = 1;
    } else if (arg == "--cycles" && i + 1 < argc) {
      settings.cycles = std::stoi(argv[++i]);
    } else if (arg == "--rounds" && i + 1 < argc) {
      settings.rounds = std::stoi(argv[++i]);
    } else {
      throw std::invalid_argument("usage: postgres_bench [--cycles N] [--rounds N] [--quick]");
    }
  }
  return settings;
}

using Clock = std::chrono::steady_clock;

double per_second(int cycles, Clock::time_point start) {
  return cycles / std::chrono::duration<double>(Clock::now() - start).count();
}

// Two prepared `SELECT 1` round trips per cycle.
double floor_cycles_per_second(PGconn* connection, int cycles) {
  const auto start = Clock::now();
  for (int i = 0; i < 2 * cycles; ++i) {
    const std::unique_ptr<PGresult, decltype(&PQclear)> result(
        PQexecPrepared(connection, "one", 0, nullptr, nullptr, nullptr, 0), &PQclear);
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK)
      throw std::runtime_error(std::string("SELECT 1 failed: ") + PQerrorMessage(connection));
  }
  return per_second(cycles, start);
}

}  // namespace

int main(int argc, char** argv) try {
  const Settings settings = parse(argc, argv);
  distlock::testing::PostgresServer server;
  auto client = distlock::Client::connect(server.url());
  const std::unique_ptr<PGconn, decltype(&PQfinish)> connection(PQconnectdb(server.url().c_str()),
                                                                &PQfinish);
  if (PQstatus(connection.get()) != CONNECTION_OK)
    throw std::runtime_error(std::string("cannot connect: ") + PQerrorMessage(connection.get()));
  PQclear(PQprepare(connection.get(), "one", "SELECT 1", 0, nullptr));
  // Both warmed up: the statements prepared, the connections made.
  (void)distlock::bench::cycles_per_second(*client, 100, "cycle",
                                           distlock::bench::Ending::release_call);
  (void)floor_cycles_per_second(connection.get(), 100);

  std::vector<double> ratios;
  double cycle = 0;
  double floor = 0;
  for (int round = 0; round < settings.rounds; ++round) {
    if (round % 2 == 0) {
      cycle = distlock::bench::cycles_per_second(*client, settings.cycles, "cycle",
                                                 distlock::bench::Ending::release_call);
      floor = floor_cycles_per_second(connection.get(), settings.cycles);
    } else {
      floor = floor_cycles_per_second(connection.get(), settings.cycles);
      cycle = distlock::bench::cycles_per_second(*client, settings.cycles, "cycle",
                                                 distlock::bench::Ending::release_call);
    }
    ratios.push_back(cycle / floor);
  }
  std::printf(
      "acquire + release(), both awaited: %.0f cycles/s; two SELECT 1 round trips: %.0f "
      "cycles/s (the last round); ratio %.2f (median of the rounds' %s; goal >= 0.9)\n",
      cycle, floor, distlock::bench::median(ratios),
      distlock::bench::listed_ratios(ratios).c_str());
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "postgres_bench: %s\n", error.what());
  return 1;
}
