// SPDX-License-Identifier: Apache-2.0
// Acquisition ids: "<type prefix>-<hash of the acquisition time>-<sequence>", unique per
// acquisition, including ids made at the same instant on different threads.
#include <gtest/gtest.h>

#include <cstddef>
#include <latch>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "core/acquisition_id.h"
#include "util/sanitizer.h"

namespace detail = distlock::detail;

namespace {

TEST(AcquisitionId, StartsWithTheTypePrefix) {
  const std::string id = detail::make_acquisition_id("order");
  EXPECT_TRUE(id.starts_with("order-")) << id;
  EXPECT_GT(id.size(), std::string("order-").size()) << id;
  const std::string other = detail::make_acquisition_id("payment");
  EXPECT_TRUE(other.starts_with("payment-")) << other;
}

TEST(AcquisitionId, ConsecutiveIdsDiffer) {
  const std::string a = detail::make_acquisition_id("order");
  const std::string b = detail::make_acquisition_id("order");
  EXPECT_NE(a, b);
}

TEST(AcquisitionId, HasNoWhitespaceOrControlCharacters) {
  // Ids go into logs and into server-side values: keep them one printable token.
  const std::string id = detail::make_acquisition_id("order");
  for (const char c : id) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u > 0x20 && u < 0x7f) << "byte " << int(u) << " in " << id;
  }
}

// A sanitizer looks for races in the generator, which a few thousand ids each show, rather than
// for collisions, which the main build's 800,000 would: its threads run 5-15 times slower.
#if defined(DISTLOCK_THREAD_SANITIZER) || defined(DISTLOCK_ADDRESS_SANITIZER)
constexpr std::size_t kIdsPerThread = 10000;
#else
constexpr std::size_t kIdsPerThread = 100000;
#endif

TEST(AcquisitionId, UniqueAcrossThreads) {
  constexpr std::size_t kThreads = 8;
  constexpr std::size_t kPerThread = kIdsPerThread;
  std::vector<std::vector<std::string>> per_thread(kThreads);
  std::latch start(kThreads);
  {
    std::vector<std::jthread> threads;
    for (std::size_t t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        auto& ids = per_thread[t];
        ids.reserve(kPerThread);
        start.arrive_and_wait();  // all threads generate at the same time
        for (std::size_t i = 0; i < kPerThread; ++i)
          ids.push_back(detail::make_acquisition_id("order"));
      });
    }
  }  // joined

  std::unordered_set<std::string> all;
  all.reserve(kThreads * kPerThread);
  for (const auto& ids : per_thread) {
    ASSERT_EQ(ids.size(), kPerThread);
    for (const auto& id : ids) {
      ASSERT_TRUE(id.starts_with("order-")) << id;
      all.insert(id);
    }
  }
  EXPECT_EQ(all.size(), kThreads * kPerThread);
}

}  // namespace
