// SPDX-License-Identifier: Apache-2.0
// The annotation's options in woven code (annotated_worker, built through distlock_weave) on a
// real redis-server: per_key transfers in opposite directions from two processes, a minimum
// hold that keeps another process out, skip and fallback on a busy lock, and on_lost(fail)
// after the lock was deleted behind the holder's back.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <distlock/distlock.h>

#include "integration_helpers.h"
#include "redis_server.h"
#include "subprocess.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

std::string run_worker(const std::vector<std::string>& args) {
  Subprocess worker(DISTLOCK_ANNOTATED_WORKER, args);
  std::string output = worker.read_all(120s);
  const ExitStatus status = worker.wait(10s);
  EXPECT_TRUE(status.success()) << status.describe() << "\n" << output;
  return output;
}

TEST(AnnotationOptions, PerKeyTransfersInOppositeDirectionsNeverDeadlockNorLoseAnUpdate) {
  RedisServer server;
  TempDirectory directory;
  const std::string ledger = (directory.path() / "ledger").string();
  std::ofstream(ledger) << "1000 1000\n";
  constexpr int kTransfers = 200;
  // Each waits for the other's locks; taken in opposite orders, they would deadlock, and the
  // read_all below would time out.
  Subprocess forth(DISTLOCK_ANNOTATED_WORKER,
                   {"transfer", server.url(), ledger, "0", "1", std::to_string(kTransfers)});
  Subprocess back(DISTLOCK_ANNOTATED_WORKER,
                  {"transfer", server.url(), ledger, "1", "0", std::to_string(kTransfers)});
  // Each transfer took both account locks, one acquisition each.
  for (Subprocess* worker : {&forth, &back}) {
    EXPECT_EQ(worker->read_all(120s), "done " + std::to_string(kTransfers) + ", locks taken " +
                                          std::to_string(2 * kTransfers) + "\n");
    EXPECT_TRUE(worker->wait(10s).success());
  }
  long first = 0;
  long second = 0;
  std::ifstream(ledger) >> first >> second;
  EXPECT_EQ(first, 1000);
  EXPECT_EQ(second, 1000);
}

TEST(AnnotationOptions, HoldAtLeastKeepsAnotherProcessOutUntilItsTime) {
  RedisServer server;
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(run_worker({"hold", server.url()}), "returned\n");
  // The worker has returned and exited; its lock stays taken, by nobody, until 5 s after the
  // grant (long enough for this process to connect and ask first, on a loaded machine).
  auto client = Client::connect(server.url());
  const auto nightly = spec("nightly", 10s, wait(30s));
  EXPECT_FALSE(client->try_acquire(nightly, {}).has_value());
  EXPECT_EQ(server.cli({"HGET", "distlock:{nightly}", "owner"}), "");
  Lease next = client->acquire(nightly, {});
  EXPECT_GE(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_TRUE(next.valid());
}

TEST(AnnotationOptions, SkipAndFallbackDoNotRunTheBodyWhileAnotherProcessHoldsTheLock) {
  RedisServer server;
  auto client = Client::connect(server.url());
  {
    Lease held = client->acquire(spec("job", 30s), {});
    EXPECT_EQ(run_worker({"busy", server.url()}), "skip 0, fallback 'cached 7', bodies run 0\n");
  }
  EXPECT_EQ(run_worker({"busy", server.url()}), "skip 7, fallback 'fresh 7', bodies run 2\n");
}

TEST(AnnotationOptions, OnLostFailThrowsWhenTheLockWasDeletedBehindTheHoldersBack) {
  RedisServer server;
  Subprocess worker(DISTLOCK_ANNOTATED_WORKER, {"lose", server.url()});
  ASSERT_EQ(worker.read_line(30s), std::optional<std::string>("in body"));
  server.cli({"DEL", "distlock:{long}"});
  const std::string output = worker.read_all(60s);
  EXPECT_TRUE(worker.wait(10s).success());
  EXPECT_EQ(output.rfind("LockLost: ", 0), 0u) << output;
  EXPECT_NE(output.find("'long'"), std::string::npos) << output;
}

}  // namespace
}  // namespace distlock::testing
