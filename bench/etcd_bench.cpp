// SPDX-License-Identifier: Apache-2.0
// etcd_bench: distlock's etcd:// cycle against etcd's own floor, on one private member in the
// same run.
//
//   cycle   one client, one thread: acquire + release() of one lock, both awaited: a
//           transaction that puts the contender key and lists the contenders, and one that
//           deletes the key; two round trips, both writes (the lease of the previous cycle
//           serves the next)
//   floor   a transaction that puts one key and one that deletes it, per cycle, on one gRPC
//           channel: two write round trips of the same client
//   ratio   cycles/s ÷ floor cycles/s                                  goal: ≥ 0.9
//   handoff a holder's release() to a waiter of another client granted (handoff.h): p50 and
//           p90 in µs and in round trips, a round trip being a put or a delete back to back (the
//           floor's cycle ÷ 2)
//
//   etcd_bench [--cycles N] [--rounds N] [--quick] [--shared-cores]
//
// The server runs on CPU 0 and this process on the others (server_cpu.h), unless
// --shared-cores.
// Each ratio is the median over the rounds, the two sides alternating.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <distlock/distlock.h>

#include "etcd_rpc.grpc.pb.h"
#include "etcd_server.h"
#include "handoff.h"
#include "redis_reference.h"
#include "server_cpu.h"

namespace {

struct Settings {
  int cycles = 3000;
  int rounds = 5;
  int handoffs = 200;
  bool shared_cores = false;
};

Settings parse(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      settings.cycles = 500;
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
          "usage: etcd_bench [--cycles N] [--rounds N] [--quick] "
          "[--shared-cores]");
    }
  }
  return settings;
}

using Clock = std::chrono::steady_clock;

double per_second(int cycles, Clock::time_point start) {
  return cycles / std::chrono::duration<double>(Clock::now() - start).count();
}

void check(const grpc::Status& status, const char* what) {
  if (!status.ok()) throw std::runtime_error(std::string(what) + ": " + status.error_message());
}

// A transaction putting one key and one deleting it, per cycle.
double floor_cycles_per_second(etcdserverpb::KV::Stub& kv, int cycles) {
  etcdserverpb::TxnRequest put;
  auto* written = put.add_success()->mutable_request_put();
  written->set_key("/bench/floor");
  written->set_value("x");
  etcdserverpb::TxnRequest remove;
  remove.add_success()->mutable_request_delete_range()->set_key("/bench/floor");
  const auto start = Clock::now();
  for (int i = 0; i < cycles; ++i) {
    for (const auto* request : {&put, &remove}) {
      grpc::ClientContext context;
      etcdserverpb::TxnResponse response;
      check(kv.Txn(&context, *request, &response), "Txn");
    }
  }
  return per_second(cycles, start);
}

}  // namespace

int main(int argc, char** argv) try {
  const Settings settings = parse(argc, argv);
  const distlock::bench::ServerCpu server_cpu(settings.shared_cores);
  distlock::testing::EtcdServer server;
  server_cpu.place_server(server.pid());
  std::printf("etcd_bench: %s\n", server_cpu.describe().c_str());
  auto client = distlock::Client::connect(server.url());
  const auto channel =
      grpc::CreateChannel("ipv4:" + server.endpoint(), grpc::InsecureChannelCredentials());
  const auto kv = etcdserverpb::KV::NewStub(channel);
  // Both warmed up: the connections made, a lease on the shelf.
  (void)distlock::bench::cycles_per_second(*client, 100, "cycle",
                                           distlock::bench::Ending::release_call);
  (void)floor_cycles_per_second(*kv, 100);

  std::vector<double> ratios;
  double cycle = 0;
  double floor = 0;
  for (int round = 0; round < settings.rounds; ++round) {
    if (round % 2 == 0) {
      cycle = distlock::bench::cycles_per_second(*client, settings.cycles, "cycle",
                                                 distlock::bench::Ending::release_call);
      floor = floor_cycles_per_second(*kv, settings.cycles);
    } else {
      floor = floor_cycles_per_second(*kv, settings.cycles);
      cycle = distlock::bench::cycles_per_second(*client, settings.cycles, "cycle",
                                                 distlock::bench::Ending::release_call);
    }
    ratios.push_back(cycle / floor);
  }
  std::printf(
      "acquire + release(), both awaited: %.0f cycles/s; a put and a delete: %.0f "
      "cycles/s (the last round); ratio %.2f (median of the rounds' %s; goal >= 0.9)\n",
      cycle, floor, distlock::bench::median(ratios),
      distlock::bench::listed_ratios(ratios).c_str());
  distlock::bench::report_handoffs(server.url(), settings.handoffs, 1e6 / (2 * floor));
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "etcd_bench: %s\n", error.what());
  return 1;
}
