// SPDX-License-Identifier: Apache-2.0
// Where an etcd lock lives (runtime/backends/etcd/mutex_keys.h): the prefix of a lock name, a
// contender's key as etcd's concurrency.Mutex names it, and which keys below a prefix are its
// contenders, oldest first. The integration tests run the same against a real etcd and beside
// `etcdctl lock`.
#include "backends/etcd/mutex_keys.h"

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

std::vector<std::string> names(const std::vector<Contender>& contenders) {
  std::vector<std::string> found;
  for (const auto& contender : contenders) found.push_back(contender.key);
  return found;
}

TEST(EtcdMutexKeys, ALockNameIsAPrefixBelowTheRootAsOnZooKeeper) {
  EXPECT_EQ(lock_prefix("order"), "/distlock/order");
  EXPECT_EQ(lock_prefix("order:42"), "/distlock/order/42");
  EXPECT_EQ(lock_prefix("order:alice:42"), "/distlock/order/alice:42");
  EXPECT_EQ(lock_prefix("order:"), "/distlock/order/");
}

TEST(EtcdMutexKeys, AContenderIsItsLeaseIdInLowerCaseHexAsGoWritesIt) {
  EXPECT_EQ(contender_key("/distlock/order/42", 0x694d7a3b2c1e0f05),
            "/distlock/order/42/694d7a3b2c1e0f05");
  EXPECT_EQ(contender_key("/distlock/order/42", 0xabc), "/distlock/order/42/abc");
  EXPECT_EQ(children_range_end("/distlock/order/42"), "/distlock/order/420");
}

TEST(EtcdMutexKeys, TheContendersAreTheHexKeysOneLevelDownOldestFirst) {
  const auto listed = keys({{"/distlock/order/42/b2", 9},
                            {"/distlock/order/42/a1", 7},
                            {"/distlock/order/42/not-a-lease", 3},
                            {"/distlock/order/42/ABC", 4},
                            {"/distlock/order/42/c3/d4", 2},
                            {"/distlock/order/420/e5", 1}});
  EXPECT_EQ(names(contenders_of("/distlock/order/42", listed)),
            (std::vector<std::string>{"/distlock/order/42/a1", "/distlock/order/42/b2"}));
}

TEST(EtcdMutexKeys, ATypesContendersAreNotItsKeysLocks) {
  // "order:abc" lives below "order": its contenders are two levels down from "order".
  const auto listed = keys({{"/distlock/order/abc/1f", 5}, {"/distlock/order/2e", 6}});
  EXPECT_EQ(names(contenders_of("/distlock/order", listed)),
            (std::vector<std::string>{"/distlock/order/2e"}));
}

}  // namespace
}  // namespace distlock::detail::etcd
