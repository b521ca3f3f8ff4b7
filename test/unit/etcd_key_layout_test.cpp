// SPDX-License-Identifier: Apache-2.0
// Where an etcd lock lives (runtime/backends/etcd/key_layout.h): the prefix of a lock name, a
// contender's key as etcd's concurrency.Mutex and recipes.RWMutex name it, a semaphore's two
// parts, and which keys below a prefix hold a contender of each recipe back, oldest first. The
// integration tests run the same against a real etcd and beside `etcdctl lock`.
#include "backends/etcd/key_layout.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distlock::detail::etcd {
namespace {

google::protobuf::RepeatedPtrField<mvccpb::KeyValue> keys(
    const std::vector<std::pair<std::string, std::int64_t>>& listed) {
  google::protobuf::RepeatedPtrField<mvccpb::KeyValue> kvs;
  for (const auto& [key, revision] : listed) {
    auto* kv = kvs.Add();
    kv->set_key(key);
    kv->set_create_revision(revision);
  }
  return kvs;
}

std::vector<std::string> names(const std::vector<ListedKey>& contenders) {
  std::vector<std::string> found;
  for (const auto& contender : contenders) found.push_back(contender.key);
  return found;
}

TEST(EtcdKeyLayout, ALockNameIsAPrefixBelowTheRootAsOnZooKeeper) {
  EXPECT_EQ(lock_prefix("order"), "/distlock/order");
  EXPECT_EQ(lock_prefix("order:42"), "/distlock/order/42");
  EXPECT_EQ(lock_prefix("order:alice:42"), "/distlock/order/alice:42");
  EXPECT_EQ(lock_prefix("order:"), "/distlock/order/");
}

TEST(EtcdKeyLayout, AContenderIsItsLeaseIdInLowerCaseHexAsGoWritesIt) {
  EXPECT_EQ(contender_key("/distlock/order/42", Recipe::mutex, 0x694d7a3b2c1e0f05),
            "/distlock/order/42/694d7a3b2c1e0f05");
  EXPECT_EQ(contender_key("/distlock/order/42", Recipe::mutex, 0xabc), "/distlock/order/42/abc");
  EXPECT_EQ(children_range_end("/distlock/order/42"), "/distlock/order/420");
}

TEST(EtcdKeyLayout, TheContendersAreTheHexKeysOneLevelDownOldestFirst) {
  const auto listed = keys({{"/distlock/order/42/b2", 9},
                            {"/distlock/order/42/a1", 7},
                            {"/distlock/order/42/not-a-lease", 3},
                            {"/distlock/order/42/ABC", 4},
                            {"/distlock/order/42/c3/d4", 2},
                            {"/distlock/order/420/e5", 1}});
  EXPECT_EQ(names(contenders_of("/distlock/order/42", listed)),
            (std::vector<std::string>{"/distlock/order/42/a1", "/distlock/order/42/b2"}));
}

TEST(EtcdKeyLayout, ATypesContendersAreNotItsKeysLocks) {
  // "order:abc" lives below "order": its contenders are two levels down from "order".
  const auto listed = keys({{"/distlock/order/abc/1f", 5}, {"/distlock/order/2e", 6}});
  EXPECT_EQ(names(contenders_of("/distlock/order", listed)),
            (std::vector<std::string>{"/distlock/order/2e"}));
}

TEST(EtcdKeyLayout, ReadersAndWritersAreKeysBelowReadAndWriteAsInRecipesRWMutex) {
  EXPECT_EQ(contender_key("/distlock/report/7", Recipe::read, 0xabc),
            "/distlock/report/7/read/abc");
  EXPECT_EQ(contender_key("/distlock/report/7", Recipe::write, 0xabc),
            "/distlock/report/7/write/abc");
}

TEST(EtcdKeyLayout, AReaderWaitsForWritersOnlyAWriterForEveryone) {
  // Go's RWMutex names its keys by decimal nanoseconds: hexadecimal too.
  const auto listed = keys({{"/distlock/report/7/read/a1", 4},
                            {"/distlock/report/7/write/1700000000000000000", 6},
                            {"/distlock/report/7/read/b2", 8},
                            {"/distlock/report/7/c3", 2},
                            {"/distlock/report/7/write/x", 3}});
  EXPECT_EQ(names(blocking_keys("/distlock/report/7", Recipe::read, listed)),
            (std::vector<std::string>{"/distlock/report/7/write/1700000000000000000"}));
  EXPECT_EQ(names(blocking_keys("/distlock/report/7", Recipe::write, listed)),
            (std::vector<std::string>{"/distlock/report/7/read/a1",
                                      "/distlock/report/7/write/1700000000000000000",
                                      "/distlock/report/7/read/b2"}));
  EXPECT_EQ(names(blocking_keys("/distlock/report/7", Recipe::mutex, listed)),
            (std::vector<std::string>{"/distlock/report/7/c3"}));
}

TEST(EtcdKeyLayout, ASemaphoreIsAnEntryMutexAndPermitKeysBelowItsLock) {
  EXPECT_EQ(semaphore_entry("/distlock/pool/a"), "/distlock/pool/a/locks");
  EXPECT_EQ(semaphore_permits("/distlock/pool/a"), "/distlock/pool/a/leases");
  // Neither part's name is hexadecimal: no Mutex contender of the lock's name.
  const auto listed = keys({{"/distlock/pool/a/locks/1f", 5}, {"/distlock/pool/a/leases/2e", 6}});
  EXPECT_TRUE(contenders_of("/distlock/pool/a", listed).empty());
  EXPECT_EQ(names(contenders_of(semaphore_permits("/distlock/pool/a"), listed)),
            (std::vector<std::string>{"/distlock/pool/a/leases/2e"}));
}

}  // namespace
}  // namespace distlock::detail::etcd
