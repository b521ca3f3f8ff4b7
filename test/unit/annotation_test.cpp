// SPDX-License-Identifier: Apache-2.0
// What a woven guard builds from the attribute's arguments (<distlock/annotation.h>): the spec
// with every option, the fallback function, the compile-time checks it asserts at the
// attribute, and the result it returns when the lock stays busy.
#include <distlock/annotation.h>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

namespace distlock {
namespace {

using namespace std::chrono_literals;

int doubled(int value) { return value * 2; }
std::string named(std::string name, int times) { return name + ":" + std::to_string(times); }

struct Shelf {
  int count = 3;
  int fallback_count(int extra) { return count + extra; }
};

struct NoDefault {
  explicit NoDefault(int) {}
};

constexpr auto kSkip = annotation("job", 30s, try_only, on_busy(skip));
constexpr auto kFallback = annotation("job", "30s", on_busy(fallback(&doubled)));
constexpr auto kMemberFallback = annotation("job", 30s, on_busy(fallback(&Shelf::fallback_count)));
constexpr auto kPlain = annotation("job", 30s, per_key, hold_at_least(2s), on_lost(fail));

static_assert(kSkip.spec.on_busy == OnBusy::skip && kSkip.spec.wait == Millis::zero());
static_assert(kFallback.spec.on_busy == OnBusy::fallback && kFallback.fallback == &doubled);
static_assert(kPlain.spec.per_key && kPlain.spec.hold_at_least == 2s &&
              kPlain.spec.on_lost == OnLost::fail && kPlain.spec.on_busy == OnBusy::raise);

// skip needs a result it can make from nothing.
static_assert(skip_fits<void>(kSkip) && skip_fits<bool>(kSkip) &&
              skip_fits<std::optional<NoDefault>>(kSkip) && skip_fits<std::string>(kSkip));
static_assert(!skip_fits<NoDefault>(kSkip) && !skip_fits<int&>(kSkip));
static_assert(skip_fits<NoDefault>(kPlain), "without skip any result is fine");

// A fallback fits when it takes the function's arguments and returns its result type.
static_assert(fallback_fits<int, NoObject, int>(kFallback));
static_assert(fallback_fits<long, NoObject, int&>(kFallback));
static_assert(!fallback_fits<int, NoObject, std::string>(kFallback));
static_assert(!fallback_fits<std::string, NoObject, int>(kFallback));
static_assert(fallback_fits<int, Shelf*, int>(kMemberFallback));
static_assert(!fallback_fits<int, const Shelf*, int>(kMemberFallback),
              "a const member cannot fall back to a non-const one");
static_assert(!fallback_fits<int, NoObject, int>(kMemberFallback),
              "a free function cannot fall back to a member");
static_assert(fallback_fits<NoDefault, NoObject, int, int>(kSkip), "no fallback: nothing to fit");

static_assert(raises_when_busy(kPlain) && !raises_when_busy(kSkip) && !raises_when_busy(kFallback));

TEST(Annotation, SkipReturnsAValueInitializedResult) {
  EXPECT_EQ(busy_result<int>(kSkip, no_object, 5), 0);
  EXPECT_FALSE(busy_result<bool>(kSkip, no_object));
  EXPECT_EQ(busy_result<std::optional<int>>(kSkip, no_object), std::nullopt);
  EXPECT_EQ(busy_result<std::string>(kSkip, no_object), "");
  busy_result<void>(kSkip, no_object);
}

TEST(Annotation, FallbackGetsTheSameArguments) {
  EXPECT_EQ(busy_result<int>(kFallback, no_object, 21), 42);
  constexpr auto named_fallback = annotation("job", 30s, on_busy(fallback(&named)));
  std::string moved = "shelf";
  EXPECT_EQ(busy_result<std::string>(named_fallback, no_object, std::move(moved), 3), "shelf:3");
}

TEST(Annotation, AMemberFallbackRunsOnTheSameObject) {
  Shelf shelf;
  shelf.count = 7;
  EXPECT_EQ(busy_result<int>(kMemberFallback, &shelf, 1), 8);
}

}  // namespace
}  // namespace distlock
