// SPDX-License-Identifier: Apache-2.0
// postgres_bench: distlock's postgresql:// cycle against PostgreSQL's own floor, on one
// private server in the same run.
//
//   cycle   one client, one thread: acquire + release() of one lock, both awaited: two
//           statements, two round trips per cycle
//   floor   two `SELECT 1` round trips per cycle on one libpq connection, prepared as
//           distlock's statements are
//   ratio   cycles/s ÷ floor cycles/s                                  goal: ≥ 0.9
//   handoff a holder's release() to a waiter of another client granted (handoff.h): p50 and
//           p90 in µs and in round trips, a round trip being a SELECT 1 back to back (the
//           floor's cycle ÷ 2)
//   writes  the server's cheapest write cycle on that connection: an upsert of one row and
//           its deletion, two prepared statements that each commit, two round trips; the
//           cycle ÷ it says how much of the gap to the floor is the writing itself
//
//   postgres_bench [--cycles N] [--rounds N] [--quick] [--shared-cores]
//
// The server runs on CPU 0 and this process on the others (server_cpu.h), unless
// --shared-cores.
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

#include "handoff.h"
#include "postgres_server.h"
#include "redis_reference.h"
#include "server_cpu.h"

namespace {

struct Settings {
  int cycles = 5000;
  int rounds = 5;
  int handoffs = 200;
  bool shared_cores = false;
};

Settings parse(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      settings.cycles = 1000;
      settings.rounds = 1;
      settings.handoffs = 50;
    } else if (arg == "--cycles" && i + 1 < argc) {
      settings.cycles = std::stoi(argv[++i]);
    } else if (arg == "--rounds" && i + 1 < argc) {
      settings.rounds = std::stoi(argv[++i]);
    } else if (arg == "--shared-cores") {
      settings.shared_cores = true;
    } else {
      throw std::invalid_argument(
          "usage: postgres_bench [--cycles N] [--rounds N] [--quick] "
          "[--shared-cores]");
    }
  }
  return settings;
}

using Clock = std::chrono::steady_clock;

double per_second(int cycles, Clock::time_point start) {
  return cycles / std::chrono::duration<double>(Clock::now() - start).count();
}

void run_prepared(PGconn* connection, const char* statement, const char* parameter) {
  const int count = parameter == nullptr ? 0 : 1;
  const std::unique_ptr<PGresult, decltype(&PQclear)> result(
      PQexecPrepared(connection, statement, count, &parameter, nullptr, nullptr, 0), &PQclear);
  const auto status = PQresultStatus(result.get());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK)
    throw std::runtime_error(std::string(statement) + " failed: " + PQerrorMessage(connection));
}

void prepare(PGconn* connection, const char* name, const char* text, int parameters) {
  const std::unique_ptr<PGresult, decltype(&PQclear)> result(
      PQprepare(connection, name, text, parameters, nullptr), &PQclear);
  if (PQresultStatus(result.get()) != PGRES_COMMAND_OK)
    throw std::runtime_error(std::string("cannot prepare ") + name + ": " +
                             PQerrorMessage(connection));
}

// Two prepared `SELECT 1` round trips per cycle.
double floor_cycles_per_second(PGconn* connection, int cycles) {
  const auto start = Clock::now();
  for (int i = 0; i < 2 * cycles; ++i) run_prepared(connection, "one", nullptr);
  return per_second(cycles, start);
}

// An upsert of one row and its deletion per cycle, each committed.
double write_cycles_per_second(PGconn* connection, int cycles) {
  const auto start = Clock::now();
  for (int i = 0; i < cycles; ++i) {
    run_prepared(connection, "up", "bench");
    run_prepared(connection, "down", "bench");
  }
  return per_second(cycles, start);
}

}  // namespace

int main(int argc, char** argv) try {
  const Settings settings = parse(argc, argv);
  const distlock::bench::ServerCpu server_cpu(settings.shared_cores);
  distlock::testing::PostgresServer server;
  server_cpu.place_server(server.pid());
  std::printf("postgres_bench: %s\n", server_cpu.describe().c_str());
  auto client = distlock::Client::connect(server.url());
  const std::unique_ptr<PGconn, decltype(&PQfinish)> connection(PQconnectdb(server.url().c_str()),
                                                                &PQfinish);
  if (PQstatus(connection.get()) != CONNECTION_OK)
    throw std::runtime_error(std::string("cannot connect: ") + PQerrorMessage(connection.get()));
  {
    const std::unique_ptr<PGresult, decltype(&PQclear)> created(
        PQexec(connection.get(), "CREATE TABLE bench_writes (name text PRIMARY KEY, v bigint)"),
        &PQclear);
    if (PQresultStatus(created.get()) != PGRES_COMMAND_OK)
      throw std::runtime_error(std::string("cannot create the table: ") +
                               PQerrorMessage(connection.get()));
  }
  prepare(connection.get(), "one", "SELECT 1", 0);
  prepare(connection.get(), "up",
          "INSERT INTO bench_writes VALUES ($1, 1) ON CONFLICT (name) DO UPDATE SET v = "
          "bench_writes.v + 1",
          1);
  prepare(connection.get(), "down", "DELETE FROM bench_writes WHERE name = $1", 1);
  // All warmed up: the statements prepared, the connections made.
  (void)distlock::bench::cycles_per_second(*client, 100, "cycle",
                                           distlock::bench::Ending::release_call);
  (void)floor_cycles_per_second(connection.get(), 100);
  (void)write_cycles_per_second(connection.get(), 100);

  std::vector<double> ratios;
  std::vector<double> write_ratios;
  double cycle = 0;
  double floor = 0;
  double writes = 0;
  const auto measure_cycle = [&] {
    cycle = distlock::bench::cycles_per_second(*client, settings.cycles, "cycle",
                                               distlock::bench::Ending::release_call);
  };
  for (int round = 0; round < settings.rounds; ++round) {
    if (round % 2 == 0) measure_cycle();
    floor = floor_cycles_per_second(connection.get(), settings.cycles);
    writes = write_cycles_per_second(connection.get(), settings.cycles);
    if (round % 2 == 1) measure_cycle();
    ratios.push_back(cycle / floor);
    write_ratios.push_back(cycle / writes);
  }
  std::printf(
      "acquire + release(), both awaited: %.0f cycles/s; two SELECT 1 round trips: %.0f "
      "cycles/s (the last round); ratio %.2f (median of the rounds' %s; goal >= 0.9)\n",
      cycle, floor, distlock::bench::median(ratios),
      distlock::bench::listed_ratios(ratios).c_str());
  std::printf(
      "an upsert and a delete of one row, each committed: %.0f cycles/s (the last round); "
      "acquire + release() / that: %.2f (median of the rounds' %s)\n",
      writes, distlock::bench::median(write_ratios),
      distlock::bench::listed_ratios(write_ratios).c_str());
  distlock::bench::report_handoffs(server.url(), settings.handoffs, 1e6 / (2 * floor));
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "postgres_bench: %s\n", error.what());
  return 1;
}
