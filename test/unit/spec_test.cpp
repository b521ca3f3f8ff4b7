// SPDX-License-Identifier: Apache-2.0
// spec(): a lock's type and ttl, and how to take it. Constant-evaluated specs are checked
// during compilation (see compile_fail/); specs built from run-time values throw ConfigError.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>

#include <distlock/error.h>
#include <distlock/spec.h>

using namespace std::chrono_literals;
using distlock::Millis;

namespace {

// ---------------------------------------------------------------------------------------
// Constant evaluation

constexpr auto kDefault = distlock::spec("order", 30s);
static_assert(kDefault.type == "order");
static_assert(kDefault.ttl == 30s);
static_assert(kDefault.wait == distlock::kWaitForever);
static_assert(kDefault.renew);
static_assert(distlock::kWaitForever == Millis::max());

constexpr auto kWaiting = distlock::spec("order", 30s, distlock::wait(2s));
static_assert(kWaiting.wait == 2s);
static_assert(kWaiting.renew);

constexpr auto kTryOnly = distlock::spec("order", "10s", distlock::try_only);
static_assert(kTryOnly.wait == Millis::zero());
static_assert(kTryOnly.ttl == 10s);

constexpr auto kNoRenew = distlock::spec("order", 5000, distlock::renew(false));
static_assert(!kNoRenew.renew);
static_assert(kNoRenew.ttl == 5s);
static_assert(kNoRenew.wait == distlock::kWaitForever);

constexpr auto kAll =
    distlock::spec("inventory", "1m", distlock::wait("500ms"), distlock::renew(false));
static_assert(kAll.type == "inventory");
static_assert(kAll.ttl == 1min);
static_assert(kAll.wait == 500ms);
static_assert(!kAll.renew);

// wait(0) is allowed and means the same as try_only.
static_assert(distlock::spec("order", 1s, distlock::wait(0ms)).wait == Millis::zero());
// Sub-millisecond ttls round up rather than to an invalid zero.
static_assert(distlock::spec("order", 10us).ttl == 1ms);

// ---------------------------------------------------------------------------------------
// Run time

// Keeps a value out of constant evaluation.
template <class T>
T opaque(T value) {
  volatile bool keep = true;
  return keep ? value : T{};
}

std::string message_of(auto&& build) {
  try {
    (void)build();
  } catch (const distlock::ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError";
  return {};
}

TEST(Spec, Defaults) {
  const distlock::LockSpec s = distlock::spec("order", 30s);
  EXPECT_EQ(s.type, "order");
  EXPECT_EQ(s.ttl, 30000ms);
  EXPECT_EQ(s.wait, distlock::kWaitForever);
  EXPECT_TRUE(s.renew);
}

TEST(Spec, Options) {
  EXPECT_EQ(distlock::spec("order", 30s, distlock::wait(2s)).wait, 2000ms);
  EXPECT_EQ(distlock::spec("order", 30s, distlock::try_only).wait, 0ms);
  EXPECT_FALSE(distlock::spec("order", 30s, distlock::renew(false)).renew);
  EXPECT_TRUE(distlock::spec("order", 30s, distlock::renew(true)).renew);
  const auto both = distlock::spec("order", 30s, distlock::wait(2s), distlock::renew(false));
  EXPECT_EQ(both.wait, 2s);
  EXPECT_FALSE(both.renew);
  EXPECT_EQ(both.ttl, 30s);
}

TEST(Spec, RunTimeValuesAreAccepted) {
  const std::string type = opaque(std::string("payment"));
  const auto s =
      distlock::spec(std::string_view(type), opaque(1500ms), distlock::wait(opaque(250ms)));
  EXPECT_EQ(s.type, "payment");
  EXPECT_EQ(s.ttl, 1500ms);
  EXPECT_EQ(s.wait, 250ms);
}

// The spec keeps its own copy of the type: a spec built from a string that is gone still has
// it. (A view of it would read freed memory: AddressSanitizer's heap-use-after-free.)
TEST(Spec, OutlivesTheStringItWasBuiltFrom) {
  const distlock::LockSpec s = [] {
    const std::string type = opaque(std::string("payments-of-the-long-kind"));
    return distlock::spec(std::string_view(type), 10s);
  }();
  EXPECT_EQ(s.type, "payments-of-the-long-kind");
  EXPECT_EQ(std::string(s.type), "payments-of-the-long-kind");
}

TEST(Spec, TypesUpToTheLimit) {
  const std::string longest(distlock::kMaxLockTypeLength, 't');
  EXPECT_EQ(distlock::spec(std::string_view(longest), 1s).type, longest);
  const std::string too_long = longest + "t";
  const std::string what =
      message_of([&] { return distlock::spec(std::string_view(too_long), 1s); });
  EXPECT_NE(what.find("longer than 128 bytes"), std::string::npos) << what;
}

TEST(Spec, EmptyTypeAtRunTimeIsAConfigError) {
  const std::string empty = opaque(std::string());
  EXPECT_THROW((void)distlock::spec(std::string_view(empty), 30s), distlock::ConfigError);
  EXPECT_THROW((void)distlock::spec(std::string_view(), 30s), distlock::ConfigError);
  const std::string what = message_of([&] { return distlock::spec(std::string_view(empty), 30s); });
  EXPECT_NE(what.find("empty"), std::string::npos) << what;
}

TEST(Spec, ZeroTtlAtRunTimeIsAConfigError) {
  EXPECT_THROW((void)distlock::spec("order", opaque(0ms)), distlock::ConfigError);
  EXPECT_THROW((void)distlock::spec("order", opaque(0)), distlock::ConfigError);
  EXPECT_THROW((void)distlock::spec(
                   "order", distlock::DurationArg(std::string_view(opaque(std::string("0s"))))),
               distlock::ConfigError);
}

TEST(Spec, NegativeTtlAtRunTimeIsAConfigError) {
  EXPECT_THROW((void)distlock::spec("order", opaque(-1ms)), distlock::ConfigError);
  EXPECT_THROW((void)distlock::spec("order", opaque(-5)), distlock::ConfigError);
  EXPECT_THROW((void)distlock::spec("order", opaque(-30s)), distlock::ConfigError);
}

TEST(Spec, TtlErrorNamesTheLockType) {
  const std::string what = message_of([] { return distlock::spec("order", opaque(0ms)); });
  EXPECT_NE(what.find("order"), std::string::npos) << what;
  EXPECT_NE(what.find("ttl"), std::string::npos) << what;
  try {
    (void)distlock::spec("order", opaque(-1ms));
    ADD_FAILURE() << "no ConfigError";
  } catch (const distlock::ConfigError& e) {
    EXPECT_EQ(e.lock(), "order");
  }
}

TEST(Spec, NegativeWaitIsAConfigError) {
  EXPECT_THROW((void)distlock::spec("order", 30s, distlock::wait(opaque(-1ms))),
               distlock::ConfigError);
  EXPECT_THROW((void)distlock::spec("order", 30s, distlock::wait(opaque(-2s))),
               distlock::ConfigError);
  const std::string what =
      message_of([] { return distlock::spec("order", 30s, distlock::wait(opaque(-1ms))); });
  EXPECT_NE(what.find("order"), std::string::npos) << what;
  EXPECT_NE(what.find("wait"), std::string::npos) << what;
}

TEST(Spec, ReadAndWriteChooseTheModeOfAReadWriteLock) {
  static_assert(distlock::spec("doc", 1s).mode == distlock::Mode::exclusive);
  static_assert(distlock::spec("doc", 1s, distlock::read).mode == distlock::Mode::read);
  static_assert(distlock::spec("doc", 1s, distlock::write).mode == distlock::Mode::write);
  constexpr auto both = distlock::spec("doc", 1s, distlock::write, distlock::wait(2s));
  static_assert(both.mode == distlock::Mode::write && both.wait == 2s);
  const std::string type = opaque(std::string("doc"));
  EXPECT_EQ(distlock::spec(std::string_view(type), 1s, distlock::read).mode, distlock::Mode::read);
}

TEST(Spec, PermitsMakeASemaphore) {
  static_assert(distlock::spec("pool", 1s).permits == 0);
  static_assert(distlock::spec("pool", 1s, distlock::permits(1)).permits == 1);
  static_assert(distlock::spec("pool", 1s, distlock::permits(4294967295LL)).permits == 4294967295U);
  EXPECT_EQ(distlock::spec("pool", 1s, distlock::permits(opaque(8LL))).permits, 8U);
}

TEST(Spec, PermitsOutOfRangeAreAConfigErrorAtRunTime) {
  for (const long long count : {0LL, -1LL, 4294967296LL}) {
    const std::string what =
        message_of([&] { return distlock::spec("pool", 1s, distlock::permits(opaque(count))); });
    EXPECT_NE(what.find("pool"), std::string::npos) << what;
    EXPECT_NE(what.find("permits must be between 1 and 4294967295"), std::string::npos) << what;
  }
}

TEST(Spec, KindsThatDoNotMixAreAConfigErrorAtRunTime) {
  const auto permits = distlock::permits(opaque(2LL));
  const std::string read_permits =
      message_of([&] { return distlock::spec("pool", 1s, permits, distlock::read); });
  EXPECT_NE(read_permits.find("no read or write side"), std::string::npos) << read_permits;
  const std::string fair_permits =
      message_of([&] { return distlock::spec("pool", 1s, distlock::fair, permits); });
  EXPECT_NE(fair_permits.find("fair applies to exclusive locks"), std::string::npos)
      << fair_permits;
  const std::string type = opaque(std::string("doc"));
  const std::string fair_read = message_of(
      [&] { return distlock::spec(std::string_view(type), 1s, distlock::read, distlock::fair); });
  EXPECT_NE(fair_read.find("fair applies to exclusive locks"), std::string::npos) << fair_read;
  static_assert(distlock::spec("order", 1s, distlock::fair).fair);
}

TEST(Spec, ZeroWaitIsAllowed) {
  EXPECT_EQ(distlock::spec("order", 30s, distlock::wait(opaque(0ms))).wait, 0ms);
}

TEST(Spec, SpecErrorsAreDistlockErrors) {
  try {
    (void)distlock::spec("order", opaque(0ms));
    ADD_FAILURE() << "no exception";
  } catch (const distlock::Error& e) {
    EXPECT_NE(dynamic_cast<const distlock::ConfigError*>(&e), nullptr);
  }
}

}  // namespace
