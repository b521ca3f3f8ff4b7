// SPDX-License-Identifier: Apache-2.0
// The exclusive lock on ZooKeeper: "ledger:<id>" is the node /distlock/ledger/<id>, laid out as
// Curator's InterProcessMutex lays it out, and a lease's fence is its node's czxid.
//
//   lock_kinds_zookeeper zookeeper://HOST:PORT[,HOST:PORT...]
//
// Four threads post entries with a read-modify-write of one counter; the lock keeps every
// update, and each grant's fence is above the one before. Exits 1 when an update was lost or a
// fence went backwards.
#include <distlock/distlock.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {
constexpr int kThreads = 4;
constexpr int kEntriesPerThread = 25;
int posted = 0;                     // guarded by the lock
std::vector<std::uint64_t> fences;  // each grant's fence, in grant order; guarded by the lock
}  // namespace

[[distlock::lock("ledger", 30s)]]
void post_entry([[distlock::key]] const std::string& ledger_id) {
  fences.push_back(distlock::current()->fence());
  const int seen = posted;
  std::this_thread::yield();  // without the lock, another thread's update is lost here
  posted = seen + 1;
}

int main(int argc, char** argv) {
  const std::string url = argc > 1 ? argv[1] : "";
  if (url.rfind("zookeeper://", 0) != 0) {
    std::fprintf(stderr, "usage: lock_kinds_zookeeper zookeeper://HOST:PORT\n");
    return 2;
  }
  distlock::configure(url);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([] {
      for (int n = 0; n < kEntriesPerThread; ++n) post_entry("main");
    });
  }
  for (auto& thread : threads) thread.join();

  bool fences_increase = true;
  for (std::size_t i = 1; i < fences.size(); ++i)
    fences_increase = fences_increase && fences[i] > fences[i - 1];
  std::printf("entries posted under /distlock/ledger/main: %d of %d\n", posted,
              kThreads * kEntriesPerThread);
  std::printf("fences increasing in grant order: %s\n", fences_increase ? "yes" : "no");
  return posted == kThreads * kEntriesPerThread && fences_increase ? 0 : 1;
}
