// SPDX-License-Identifier: Apache-2.0
// The ZooKeeper lock's node names and order (runtime/backends/zookeeper/lock_nodes.h): the
// paths a lock name maps to, Curator's contender names, and who is granted and who waits
// behind whom. The integration tests run the same against a real server and beside Curator.
#include "backends/zookeeper/lock_nodes.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace distlock::detail::zookeeper {
namespace {

constexpr std::string_view kUuid = "0f8e2a4c-1b3d-4e5f-9a7b-c6d5e4f3a2b1";

std::string contender(std::string_view marker, std::string_view sequence,
                      std::string_view uuid = kUuid) {
  return "_c_" + std::string(uuid) + "-" + std::string(marker) + std::string(sequence);
}

TEST(ZooKeeperLockNodes, ALockNameIsATypeNodeAndAKeyNodeBelowIt) {
  EXPECT_EQ(lock_path("order"), "/distlock/order");
  EXPECT_EQ(lock_path("order:alice:42"), "/distlock/order/alice:42");
  EXPECT_EQ(lock_path_parents("/distlock/order/alice:42"),
            (std::vector<std::string>{"/distlock", "/distlock/order"}));
  EXPECT_EQ(lock_path_parents("/distlock/order"), (std::vector<std::string>{"/distlock"}));
}

TEST(ZooKeeperLockNodes, ComponentsThatCannotBeWrittenAsTheyAreAreEscapedAndComeBack) {
  EXPECT_EQ(lock_path("order:"), "/distlock/order/%");
  EXPECT_EQ(lock_path("order:."), "/distlock/order/%2E");
  EXPECT_EQ(lock_path("order:.."), "/distlock/order/%2E%2E");
  // A key node must not pass for one of the contenders beside it ("_c_...").
  EXPECT_EQ(lock_path("order:_c_x"), "/distlock/order/%5Fc_x");
  for (const std::string_view part : {"", ".", "..", "_c_x", "_", "plain", "a.b"}) {
    const std::string path = lock_path("order:" + std::string(part));
    EXPECT_EQ(name_part(path.substr(path.rfind('/') + 1)), part) << path;
  }
  // Distinct names stay distinct paths. Lock names come escaped: a key's own '%' is "%25".
  std::set<std::string> paths;
  for (const std::string_view key : {"", ".", "..", "_", "_c_x", "%25", "%252E", "x"})
    paths.insert(lock_path("order:" + std::string(key)));
  EXPECT_EQ(paths.size(), 8u);
}

TEST(ZooKeeperLockNodes, UuidsAreRandomVersion4InCuratorsForm) {
  const std::string uuid = random_uuid();
  ASSERT_EQ(uuid.size(), 36u);
  for (const std::size_t dash : {8u, 13u, 18u, 23u}) EXPECT_EQ(uuid[dash], '-') << uuid;
  EXPECT_EQ(uuid[14], '4') << uuid;
  EXPECT_NE(std::string("89ab").find(uuid[19]), std::string::npos) << uuid;
  EXPECT_NE(random_uuid(), uuid);
  // A contender named with it parses back.
  const auto parsed = parse_contender(contender_prefix(uuid, Mode::exclusive) + "0000000001");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->kind, ContenderKind::exclusive);
}

TEST(ZooKeeperLockNodes, ContendersAreNamedAsCuratorNamesThem) {
  EXPECT_EQ(contender_prefix(kUuid, Mode::exclusive), contender("lock-", ""));
  EXPECT_EQ(contender_prefix(kUuid, Mode::read), contender("__READ__", ""));
  EXPECT_EQ(contender_prefix(kUuid, Mode::write), contender("__WRIT__", ""));
  EXPECT_EQ(lease_prefix(kUuid), contender("lease-", ""));
  EXPECT_EQ(latch_prefix(kUuid), contender("latch-", ""));
  EXPECT_EQ(semaphore_mutex_path("/distlock/pool"), "/distlock/pool/locks");
  EXPECT_EQ(semaphore_leases_path("/distlock/pool"), "/distlock/pool/leases");
}

TEST(ZooKeeperLockNodes, OnlyContendersParse) {
  const auto write = parse_contender(contender("__WRIT__", "0000000007"));
  ASSERT_TRUE(write);
  EXPECT_EQ(write->kind, ContenderKind::write);
  EXPECT_EQ(write->sequence, "0000000007");
  // An election's contender (Curator's LeaderLatch) contends as an exclusive one.
  const auto latch = parse_contender(contender("latch-", "0000000003"));
  ASSERT_TRUE(latch);
  EXPECT_EQ(latch->kind, ContenderKind::exclusive);
  EXPECT_EQ(latch->sequence, "0000000003");
  EXPECT_FALSE(parse_contender("alice:42"));                         // a key node
  EXPECT_FALSE(parse_contender(contender("lease-", "0000000001")));  // a semaphore's lease
  EXPECT_FALSE(parse_contender(contender("lock-", "")));
  EXPECT_FALSE(parse_contender(contender("lock-", "12a")));
  EXPECT_FALSE(parse_contender(contender("lock-", "1", "not-a-uuid")));
}

TEST(ZooKeeperLockNodes, ContendersGoInSequenceOrderWhateverTheirUuid) {
  const std::string other = "ffffffff-ffff-4fff-bfff-ffffffffffff";
  const auto ordered =
      contenders({contender("lock-", "0000000003"), "alice:42",
                  contender("lock-", "0000000001", other), contender("__READ__", "0000000002")});
  ASSERT_EQ(ordered.size(), 3u);
  EXPECT_EQ(ordered[0].sequence, "0000000001");
  EXPECT_EQ(ordered[1].sequence, "0000000002");
  EXPECT_EQ(ordered[2].sequence, "0000000003");
}

TEST(ZooKeeperLockNodes, ANodeIsFoundByItsUuid) {
  const std::vector<std::string> children = {
      contender("lock-", "1", "aaaaaaaa-aaaa-4aaa-aaaa-aaaaaaaaaaaa"), contender("lock-", "2")};
  EXPECT_EQ(find_by_uuid(children, kUuid), children[1]);
  EXPECT_EQ(find_by_uuid(children, "bbbbbbbb-bbbb-4bbb-bbbb-bbbbbbbbbbbb"), std::nullopt);
  EXPECT_FALSE(named_with_uuid(children[1], kUuid.substr(0, 35)));
}

TEST(ZooKeeperLockNodes, TheFirstExclusiveContenderIsGrantedAndEachOtherWatchesTheOneBefore) {
  const auto ordered = contenders({contender("lock-", "1", "aaaaaaaa-aaaa-4aaa-aaaa-aaaaaaaaaaaa"),
                                   contender("lock-", "2", "bbbbbbbb-bbbb-4bbb-bbbb-bbbbbbbbbbbb"),
                                   contender("lock-", "3")});
  const Verdict first = judge(ordered, ordered[0].name, Mode::exclusive);
  EXPECT_TRUE(first.present);
  EXPECT_TRUE(first.granted);
  const Verdict third = judge(ordered, ordered[2].name, Mode::exclusive);
  EXPECT_TRUE(third.present);
  EXPECT_FALSE(third.granted);
  EXPECT_EQ(third.watch, ordered[1].name);
  EXPECT_FALSE(judge(ordered, contender("lock-", "9"), Mode::exclusive).present);
}

TEST(ZooKeeperLockNodes, ReadersShareAndWaitOnlyBehindTheNearestWriterBefore) {
  const auto ordered =
      contenders({contender("__READ__", "1", "aaaaaaaa-aaaa-4aaa-aaaa-aaaaaaaaaaaa"),
                  contender("__READ__", "2", "bbbbbbbb-bbbb-4bbb-bbbb-bbbbbbbbbbbb"),
                  contender("__WRIT__", "3", "cccccccc-cccc-4ccc-cccc-cccccccccccc"),
                  contender("__READ__", "4", "dddddddd-dddd-4ddd-dddd-dddddddddddd"),
                  contender("__READ__", "5")});
  EXPECT_TRUE(judge(ordered, ordered[1].name, Mode::read).granted);
  const Verdict writer = judge(ordered, ordered[2].name, Mode::write);
  EXPECT_FALSE(writer.granted);
  EXPECT_EQ(writer.watch, ordered[1].name);
  const Verdict late_reader = judge(ordered, ordered[4].name, Mode::read);
  EXPECT_FALSE(late_reader.granted);
  EXPECT_EQ(late_reader.watch, ordered[2].name);
}

}  // namespace
}  // namespace distlock::detail::zookeeper
