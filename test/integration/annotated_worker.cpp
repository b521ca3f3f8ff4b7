// SPDX-License-Identifier: Apache-2.0
// A woven program (distlock_weave) for the tests of the annotation's options on a real server,
// one subcommand per option; the URL comes first, as configure()'s.
//
//   annotated_worker transfer URL LEDGER FROM TO COUNT  per_key transfers of 1 between the two
//                                                       balances of LEDGER ("<a> <b>"); prints
//                                                       how many and the locks they took
//   annotated_worker hold URL      a job locked with hold_at_least(5s) that returns at once
//   annotated_worker busy URL      on_busy(skip) and on_busy(fallback) calls of a lock "job"
//                                  that the test holds
//   annotated_worker lose URL      an on_lost(fail) call that outlives its lease; prints
//                                  "in body" first, so that the test can delete the lock
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include <distlock/distlock.h>

namespace {

using namespace std::chrono_literals;

std::array<long, 2> read_ledger(const std::string& path) {
  std::ifstream in(path);
  std::array<long, 2> balances{};
  if (!(in >> balances[0] >> balances[1])) throw std::runtime_error("cannot read " + path);
  return balances;
}

void write_ledger(const std::string& path, const std::array<long, 2>& balances) {
  std::ofstream out(path, std::ios::trunc);
  out << balances[0] << " " << balances[1] << "\n";
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

std::string ledger_path;

// Both balances' locks, in lock-name order whichever way the money goes: transfer(0, 1) and
// transfer(1, 0) in two processes cannot deadlock.
[[distlock::lock("account", 10s, distlock::per_key)]]
void transfer([[distlock::key]] int from, [[distlock::key]] int to) {
  std::array<long, 2> balances = read_ledger(ledger_path);
  // Without the locks another process writes between this read and the write below.
  std::this_thread::sleep_for(std::chrono::microseconds(200));
  balances[from] -= 1;
  balances[to] += 1;
  write_ledger(ledger_path, balances);
}

[[distlock::lock("nightly", 10s, distlock::hold_at_least(5s))]]
void nightly_job() {}

int bodies_run = 0;

[[distlock::lock("job", 10s, distlock::try_only, distlock::on_busy(distlock::skip))]]
int skipped_job(int id) {
  ++bodies_run;
  return id;
}

std::string cached(int id) { return "cached " + std::to_string(id); }

[[distlock::lock("job", 10s, distlock::wait(50ms), distlock::on_busy(distlock::fallback(&cached)))]]
std::string fresh(int id) {
  ++bodies_run;
  return "fresh " + std::to_string(id);
}

[[distlock::lock("long", 1s, distlock::on_lost(distlock::fail))]]
int long_job() {
  std::cout << "in body" << std::endl;
  // Works on while the lease lasts; the watchdog keeps it until the lock is gone.
  const auto give_up = std::chrono::steady_clock::now() + 60s;
  while (distlock::current()->valid() && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(10ms);
  return 42;
}

int usage() {
  std::cerr << "usage: annotated_worker transfer|hold|busy|lose URL ...\n";
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string command = argv[1];
  distlock::configure(argv[2]);
  if (command == "transfer" && argc == 7) {
    ledger_path = argv[3];
    const int from = std::stoi(argv[4]);
    const int to = std::stoi(argv[5]);
    const int count = std::stoi(argv[6]);
    for (int i = 0; i < count; ++i) transfer(from, to);
    std::cout << "done " << count << ", locks taken " << distlock::default_client().stats().acquired
              << std::endl;
  } else if (command == "hold") {
    nightly_job();
    std::cout << "returned" << std::endl;
  } else if (command == "busy") {
    const int skipped = skipped_job(7);
    const std::string fallen_back = fresh(7);
    std::cout << "skip " << skipped << ", fallback '" << fallen_back << "', bodies run "
              << bodies_run << std::endl;
  } else if (command == "lose") {
    try {
      const int result = long_job();
      std::cout << "returned " << result << std::endl;
    } catch (const distlock::LockLost& error) {
      std::cout << "LockLost: " << error.what() << std::endl;
    }
  } else {
    return usage();
  }
  return 0;
}
