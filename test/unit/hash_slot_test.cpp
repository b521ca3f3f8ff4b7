// SPDX-License-Identifier: Apache-2.0
// Redis Cluster's key hashing (runtime/backends/redis/topology/hash_slot.h) against the values
// Redis documents; the integration tests compare it with CLUSTER KEYSLOT on a real cluster.
#include "backends/redis/topology/hash_slot.h"

#include <gtest/gtest.h>

namespace distlock::detail::redis {
namespace {

TEST(HashSlot, Crc16IsXmodem) {
  // The CRC-16/XMODEM check value, which the Redis Cluster specification gives too.
  static_assert(crc16("123456789") == 0x31C3);
  EXPECT_EQ(crc16(""), 0);
}

TEST(HashSlot, KnownKeys) {
  // From the CLUSTER KEYSLOT documentation.
  EXPECT_EQ(hash_slot("somekey"), 11058);
  EXPECT_EQ(hash_slot("foo{hash_tag}"), 2515);
  EXPECT_EQ(hash_slot("hash_tag"), 2515);
}

TEST(HashSlot, OnlyTheFirstNonEmptyTagIsHashed) {
  EXPECT_EQ(hash_tag("{user1000}.following"), "user1000");
  EXPECT_EQ(hash_tag("foo{}{bar}"), "foo{}{bar}");
  EXPECT_EQ(hash_tag("foo{{bar}}zap"), "{bar");
  EXPECT_EQ(hash_tag("foo{bar}{zap}"), "bar");
  EXPECT_EQ(hash_tag("no tag"), "no tag");
  EXPECT_EQ(hash_tag("open{only"), "open{only");
}

TEST(HashSlot, EveryKeyOfALockSharesItsSlot) {
  const int slot = hash_slot("distlock:{order:42}");
  EXPECT_EQ(hash_slot("distlock:{order:42}:fence"), slot);
  EXPECT_EQ(hash_slot("distlock:{order:42}:released"), slot);
  EXPECT_EQ(slot, hash_slot("order:42"));
}

}  // namespace
}  // namespace distlock::detail::redis
