// SPDX-License-Identifier: Apache-2.0
// Bad and hostile input against a real redis-server: odd keys, an oversized key, a wrong
// password, an ACL user without rights and one with just the rights the guide lists, and a
// client that does not own a lock trying to release or renew it through the server-side
// scripts.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <set>
#include <string>
#include <vector>

#include <distlock/distlock.h>

#include "integration_helpers.h"
#include "redis_script_text.h"
#include "redis_server.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

TEST(HostileInput, KeysWithSeparatorsBracesNulAndInvalidUtf8AreDistinctLocks) {
  RedisServer server;
  auto client = Client::connect(server.url());
  const std::vector<std::string> keys = {"a:b",
                                         "a",
                                         "b",
                                         "{tag}",
                                         "}{",
                                         "a/b",
                                         "%3A",
                                         std::string("nul\0byte", 8),
                                         std::string("nul\0bytf", 8),
                                         "\xff\xfe\x80",
                                         "\xc3\x28",
                                         "ключ",
                                         "",
                                         " "};
  std::vector<Lease> leases;
  std::set<std::string> names;
  for (const auto& key : keys) {
    auto lease = client->try_acquire(spec("odd", 30s), key);
    ASSERT_TRUE(lease.has_value()) << "key #" << leases.size() << " was taken by another";
    names.insert(lease->name());
    leases.push_back(std::move(*lease));
  }
  auto pair = client->try_acquire(spec("odd", 30s), key_of("a", "b"));
  ASSERT_TRUE(pair.has_value());
  names.insert(pair->name());
  EXPECT_EQ(names.size(), keys.size() + 1);
  // One lock hash per name on the server, every name printable.
  const std::string hashes = server.cli({"--scan", "--pattern", "distlock:{odd*}"});
  EXPECT_EQ(std::count(hashes.begin(), hashes.end(), '\n') + 1, static_cast<long>(keys.size() + 1))
      << hashes;
  for (const auto& name : names)
    for (const char c : name) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "in " << name;
}

TEST(HostileInput, OversizedKeyIsAConfigErrorBeforeTheServerIsAsked) {
  RedisServer server;
  auto client = Client::connect(server.url());
  const std::string before = server.cli({"DBSIZE"});
  try {
    (void)client->acquire(spec("big", 30s), std::string(kMaxLockNameLength, 'k'));
    ADD_FAILURE() << "an oversized key was accepted";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.server(), client->server());
    EXPECT_EQ(error.lock().rfind("big:kkk", 0), 0u) << error.lock();
    EXPECT_NE(std::string(error.what()).find(std::to_string(kMaxLockNameLength)), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(server.cli({"DBSIZE"}), before);
}

TEST(HostileInput, WrongPasswordIsBackendUnavailableWithoutThePassword) {
  RedisServer server({"--requirepass", "right-secret"});
  const std::string url = "redis://:wrong-secret@127.0.0.1:" + std::to_string(server.port());
  try {
    (void)Client::connect(url);
    ADD_FAILURE() << "connected with a wrong password";
  } catch (const BackendUnavailable& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.find("wrong-secret"), std::string::npos) << what;
    EXPECT_NE(what.find("127.0.0.1:" + std::to_string(server.port())), std::string::npos) << what;
    EXPECT_NE(what.find("WRONGPASS"), std::string::npos) << what;
  }
  auto client = Client::connect("redis://:right-secret@127.0.0.1:" + std::to_string(server.port()));
  EXPECT_TRUE(client->try_acquire(spec("auth", 5s), 1).has_value());
}

TEST(HostileInput, AclUserWithoutRightsToLockKeysGetsAClearError) {
  RedisServer server;
  // May run scripts, but only on keys that are not distlock's.
  server.cli({"ACL", "SETUSER", "outsider", "on", ">pw", "~other:*", "&*", "+@all"});
  auto client = Client::connect("redis://outsider:pw@127.0.0.1:" + std::to_string(server.port()));
  try {
    (void)client->acquire(spec("guarded", 5s), 1);
    ADD_FAILURE() << "a user without rights took a lock";
  } catch (const Error& error) {
    const std::string what = error.what();
    EXPECT_EQ(error.lock(), "guarded:1");
    EXPECT_NE(what.find("NOPERM"), std::string::npos) << what;
    EXPECT_NE(what.find("guarded:1"), std::string::npos) << what;
  }
  EXPECT_EQ(server.cli({"EXISTS", "distlock:{guarded:1}"}), "0");
}

TEST(HostileInput, AclUserWithTheRightsTheGuideListsUsesEveryLockKind) {
  RedisServer server;
  // The ACL of docs/guide.md ("Redis, one server"), as written there.
  server.cli({"ACL", "SETUSER", "locker", "on", ">pw", "resetchannels", "~distlock:*",
              "&distlock:*", "-@all", "+@scripting", "+@pubsub", "+@read", "+@write", "+time"});
  const std::string url = "redis://locker:pw@127.0.0.1:" + std::to_string(server.port());
  auto holder = Client::connect(url);
  auto waiter = Client::connect(url);

  Lease held = holder->acquire(spec("acl", 300ms), 1);
  ASSERT_TRUE(eventually([&] { return holder->stats().renewals >= 2; }));
  EXPECT_TRUE(held.valid());
  const std::uint64_t held_fence = held.fence();
  auto waited = std::async(std::launch::async,
                           [&] { return waiter->acquire(spec("acl", 5s, wait(10s)), 1); });
  ASSERT_TRUE(eventually([&] { return waiter->stats().waiting == 1; }));
  held.release();
  Lease next = waited.get();
  EXPECT_GT(next.fence(), held_fence);
  EXPECT_EQ(waiter->stats().woken_by_release, 1u);
  next.release();

  for (const auto& kind : {spec("acl-kinds", 5s, read), spec("acl-kinds", 5s, write),
                           spec("acl-kinds", 5s, permits(2)), spec("acl-kinds", 5s, fair)}) {
    Lease lease = holder->acquire(kind, 2);
    EXPECT_TRUE(lease.valid());
    lease.release();
  }
  EXPECT_EQ(holder->stats().lost, 0u);
  EXPECT_EQ(waiter->stats().lost, 0u);
}

TEST(HostileInput, ANonOwnerCannotReleaseOrRenewThroughTheScripts) {
  RedisServer server;
  auto client = Client::connect(server.url());
  Lease lease = client->acquire(spec("owned", 30s), 7);
  const std::string hash = "distlock:{owned:7}";
  server.cli({"PEXPIRE", hash, "5000"});
  // An impostor names an acquisition it does not hold.
  // The release script runs after the function it calls, as the client loads it.
  EXPECT_EQ(server.cli({"EVAL", redis_script_text({"lib/release_hold", "release"}), "1", hash,
                        "impostor-1", "distlock:{owned:7}:released"}),
            "0");
  EXPECT_EQ(server.cli({"EVAL", redis_script_text({"renew"}), "1", hash, "impostor-1", "60000"}),
            "0");
  EXPECT_EQ(server.cli({"EXISTS", hash}), "1");
  EXPECT_LE(std::stol(server.cli({"PTTL", hash})), 5000);
  EXPECT_EQ(server.cli({"HGET", hash, "id"}), lease.id());
  lease.release();
  EXPECT_EQ(server.cli({"EXISTS", hash}), "0");
}

}  // namespace
}  // namespace distlock::testing
