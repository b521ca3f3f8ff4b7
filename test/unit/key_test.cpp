// SPDX-License-Identifier: Apache-2.0
// Lock names and keys: escape_name_part, Key, key_of, lock_name and the to_key
// customization point. The property that matters most is injectivity: two different
// (type, key parts) pairs must never produce the same lock name, or two unrelated callers
// would exclude each other (or, worse, a crafted key would collide with someone else's).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <distlock/error.h>
#include <distlock/key.h>

using namespace std::string_literals;
using namespace std::string_view_literals;

namespace shop {

struct OrderId {
  int value;
};
// Found by argument-dependent lookup from distlock::to_key.
std::string to_key(const OrderId& id) { return "ord-" + std::to_string(id.value); }

struct Sku {
  const char* text;
};
// Returning anything convertible to std::string_view is enough.
std::string_view to_key(const Sku& sku) { return sku.text; }

// An ADL to_key wins over the built-in enum conversion.
enum class Color { red = 0, green = 1 };
std::string to_key(Color c) { return c == Color::red ? "red" : "green"; }

struct Tricky {
  std::string text;
};
std::string to_key(const Tricky& t) { return t.text; }

}  // namespace shop

namespace {

enum Plain { plain_a = 3, plain_b = -4 };
enum class Scoped : std::uint8_t { v200 = 200 };
enum class Wide : std::int64_t { big = std::numeric_limits<std::int64_t>::min() };

// Inverse of escape_name_part, written independently from the runtime: %XX (upper-case hex)
// becomes the byte, anything else stays. Returns nullopt for text escape_name_part could not
// have produced (bad escape, a character that must have been escaped).
std::optional<std::string> unescape(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = hex(text[i + 1]);
      const int lo = hex(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u >= 0x7f || c == ':' || c == '{' || c == '}' || c == '/')
        return std::nullopt;
      out.push_back(c);
    }
  }
  return out;
}

bool is_safe_encoding(std::string_view text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return false;
    if (c == ':' || c == '{' || c == '}' || c == '/') return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// escape_name_part

TEST(EscapeNamePart, PlainTextIsUnchanged) {
  EXPECT_EQ(distlock::escape_name_part(""), "");
  EXPECT_EQ(distlock::escape_name_part("order"), "order");
  EXPECT_EQ(distlock::escape_name_part("alice-42_x.Y~"), "alice-42_x.Y~");
  EXPECT_EQ(distlock::escape_name_part("0123456789"), "0123456789");
}

TEST(EscapeNamePart, SeparatorsAndHashTagBracesAreEscaped) {
  EXPECT_EQ(distlock::escape_name_part(":"), "%3A");
  EXPECT_EQ(distlock::escape_name_part("{"), "%7B");
  EXPECT_EQ(distlock::escape_name_part("}"), "%7D");
  EXPECT_EQ(distlock::escape_name_part("/"), "%2F");
  EXPECT_EQ(distlock::escape_name_part("%"), "%25");
  EXPECT_EQ(distlock::escape_name_part("a:b{c}d/e%f"), "a%3Ab%7Bc%7Dd%2Fe%25f");
}

TEST(EscapeNamePart, PercentIsEscapedSoEscapesCannotBeForged) {
  // "%3A" typed literally must not encode like ":".
  EXPECT_EQ(distlock::escape_name_part("%3A"), "%253A");
  EXPECT_NE(distlock::escape_name_part("%3A"), distlock::escape_name_part(":"));
}

TEST(EscapeNamePart, NulIsEscapedAndDoesNotTruncate) {
  EXPECT_EQ(distlock::escape_name_part("\0"sv), "%00");
  EXPECT_EQ(distlock::escape_name_part("a\0b"sv), "a%00b");
  EXPECT_NE(distlock::escape_name_part("a\0b"sv), distlock::escape_name_part("a"));
}

TEST(EscapeNamePart, ControlCharactersBecomeUpperCaseHex) {
  EXPECT_EQ(distlock::escape_name_part("\x01"), "%01");
  EXPECT_EQ(distlock::escape_name_part("\n"), "%0A");
  EXPECT_EQ(distlock::escape_name_part("\r"), "%0D");
  EXPECT_EQ(distlock::escape_name_part("\t"), "%09");
  EXPECT_EQ(distlock::escape_name_part("\x1b"), "%1B");
  EXPECT_EQ(distlock::escape_name_part("\x1f"), "%1F");
  EXPECT_EQ(distlock::escape_name_part("\x7f"), "%7F");
}

TEST(EscapeNamePart, HighBytesBecomeUpperCaseHex) {
  EXPECT_EQ(distlock::escape_name_part("\x80"), "%80");
  EXPECT_EQ(distlock::escape_name_part("\xab"), "%AB");
  EXPECT_EQ(distlock::escape_name_part("\xff"), "%FF");
  // UTF-8 "é" is two bytes, both escaped.
  EXPECT_EQ(distlock::escape_name_part("caf\xc3\xa9"), "caf%C3%A9");
}

TEST(EscapeNamePart, EveryByteRoundTripsAndEncodesSafely) {
  for (int b = 0; b < 256; ++b) {
    const std::string raw(1, static_cast<char>(b));
    const std::string encoded = distlock::escape_name_part(raw);
    SCOPED_TRACE("byte " + std::to_string(b) + " -> " + encoded);
    EXPECT_TRUE(is_safe_encoding(encoded));
    const auto decoded = unescape(encoded);
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(*decoded, raw);
    const bool must_escape =
        b < 0x20 || b >= 0x7f || b == ':' || b == '{' || b == '}' || b == '/' || b == '%';
    if (must_escape) {
      EXPECT_EQ(encoded.size(), 3u);
      EXPECT_EQ(encoded[0], '%');
    } else if (b != ' ') {  // whether a space is escaped is the runtime's choice
      EXPECT_EQ(encoded, raw);
    }
  }
}

TEST(EscapeNamePart, RandomStringsEncodeInjectivelyAndRoundTrip) {
  // A small alphabet makes collisions between distinct inputs likely if the encoding were
  // not injective: it includes every special character and the characters of their escapes.
  const std::string alphabet = "a2A5F%:{}/\x00\x80\xff\n"s;
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<int> length(0, 8);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);

  std::unordered_set<std::string> inputs;
  std::unordered_set<std::string> encodings;
  for (int n = 0; n < 100000; ++n) {
    std::string raw;
    const int len = length(rng);
    for (int i = 0; i < len; ++i) raw.push_back(alphabet[pick(rng)]);
    const std::string encoded = distlock::escape_name_part(raw);
    ASSERT_TRUE(is_safe_encoding(encoded)) << encoded;
    const auto decoded = unescape(encoded);
    ASSERT_TRUE(decoded.has_value()) << encoded;
    ASSERT_EQ(*decoded, raw) << encoded;
    inputs.insert(raw);
    encodings.insert(encoded);
  }
  // Distinct inputs, distinct encodings.
  EXPECT_EQ(encodings.size(), inputs.size());
  EXPECT_GT(inputs.size(), 10000u);  // the sample really has many distinct inputs
}

// ---------------------------------------------------------------------------------------
// Key, key_of, lock_name

TEST(LockName, TypeAndOneKey) {
  EXPECT_EQ(distlock::lock_name("order", 42), "order:42");
  EXPECT_EQ(distlock::lock_name("order", distlock::Key(42)), "order:42");
  EXPECT_EQ(distlock::lock_name("order", distlock::key_of(42)), "order:42");
  EXPECT_EQ(distlock::lock_name("order", "alice"s), "order:alice");
}

TEST(LockName, NoKeyIsJustTheType) {
  EXPECT_EQ(distlock::lock_name("order", {}), "order");
  EXPECT_EQ(distlock::lock_name("order", distlock::Key{}), "order");
  EXPECT_EQ(distlock::lock_name("order", distlock::key_of()), "order");
  EXPECT_FALSE(distlock::Key{}.has_parts());
  EXPECT_FALSE(distlock::key_of().has_parts());
}

TEST(LockName, SeveralParts) {
  EXPECT_EQ(distlock::lock_name("order", distlock::key_of("alice", 42)), "order:alice:42");
  const distlock::Key key = distlock::key_of("alice"s, 42, true);
  EXPECT_TRUE(key.has_parts());
  EXPECT_EQ(key.encoded(), "alice:42:true");
  EXPECT_EQ(distlock::lock_name("order", key), "order:alice:42:true");
}

TEST(LockName, AppendAddsAnEscapedPart) {
  distlock::Key key;
  key.append("alice");
  key.append("a:b");
  EXPECT_TRUE(key.has_parts());
  EXPECT_EQ(distlock::lock_name("order", key), "order:alice:a%3Ab");
  EXPECT_EQ(distlock::lock_name("order", key),
            distlock::lock_name("order", distlock::key_of("alice", "a:b")));
}

TEST(LockName, TypeAndPartsAreEscaped) {
  EXPECT_EQ(distlock::lock_name("a:b", distlock::key_of("c")), "a%3Ab:c");
  EXPECT_EQ(distlock::lock_name("order", distlock::key_of("{x}/%")), "order:%7Bx%7D%2F%25");
  EXPECT_EQ(distlock::lock_name("order", distlock::key_of("\0"sv)), "order:%00");
}

TEST(LockName, ColonInsideAPartDoesNotLookLikeTwoParts) {
  const auto one = distlock::lock_name("t", distlock::key_of("a:b"));
  const auto two = distlock::lock_name("t", distlock::key_of("a", "b"));
  EXPECT_NE(one, two);
  EXPECT_EQ(one, "t:a%3Ab");
  EXPECT_EQ(two, "t:a:b");
  EXPECT_NE(distlock::key_of("a:b").encoded(), distlock::key_of("a", "b").encoded());
}

TEST(LockName, ColonInsideTheTypeDoesNotLookLikeAKeyPart) {
  const auto type_with_colon = distlock::lock_name("a:b", distlock::key_of("c"));
  const auto parts = distlock::lock_name("a", distlock::key_of("b", "c"));
  EXPECT_NE(type_with_colon, parts);
}

TEST(LockName, EmptyKeyPartIsNotNoKey) {
  const distlock::Key empty_part = distlock::key_of(""s);
  EXPECT_TRUE(empty_part.has_parts());
  EXPECT_NE(distlock::lock_name("order", empty_part), distlock::lock_name("order", {}));
  EXPECT_EQ(distlock::lock_name("order", empty_part), "order:");
  // ...nor is it the same as two empty parts, or one part followed by an empty part.
  EXPECT_NE(distlock::lock_name("order", distlock::key_of("", "")),
            distlock::lock_name("order", empty_part));
  EXPECT_NE(distlock::lock_name("order", distlock::key_of("a", "")),
            distlock::lock_name("order", distlock::key_of("a")));
}

TEST(LockName, RandomTypesAndKeysNeverCollide) {
  // (type, parts...) -> lock name must be injective over all combinations, including
  // zero parts and empty parts.
  const std::string alphabet = "ab%:{}/\x00\x80"s;
  std::mt19937_64 rng(77);
  std::uniform_int_distribution<int> length(0, 3);
  std::uniform_int_distribution<int> part_count(0, 3);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  auto random_text = [&](int min_length) {
    std::string s;
    const int len = std::max(min_length, length(rng));
    for (int i = 0; i < len; ++i) s.push_back(alphabet[pick(rng)]);
    return s;
  };

  std::set<std::pair<std::string, std::vector<std::string>>> inputs;
  std::unordered_set<std::string> names;
  for (int n = 0; n < 50000; ++n) {
    const std::string type = random_text(1);
    std::vector<std::string> parts(static_cast<std::size_t>(part_count(rng)));
    distlock::Key key;
    for (auto& part : parts) {
      part = random_text(0);
      key.append(part);
    }
    ASSERT_EQ(key.has_parts(), !parts.empty());
    names.insert(distlock::lock_name(type, key));
    inputs.emplace(type, std::move(parts));
  }
  EXPECT_EQ(names.size(), inputs.size());
  EXPECT_GT(inputs.size(), 10000u);
}

TEST(LockName, TooLongIsAConfigErrorNamingTheLock) {
  const std::string type = "order";
  // "order:" + n bytes: exactly kMaxLockNameLength is still accepted.
  const std::size_t room = distlock::kMaxLockNameLength - type.size() - 1;
  EXPECT_EQ(distlock::lock_name(type, distlock::key_of(std::string(room, 'x'))).size(),
            distlock::kMaxLockNameLength);

  try {
    (void)distlock::lock_name(type, distlock::key_of(std::string(room + 1, 'x')));
    ADD_FAILURE() << "a lock name of kMaxLockNameLength + 1 bytes was accepted";
  } catch (const distlock::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("order:xxxxxxxxxxxxxxxx"), std::string::npos) << what;
  }
}

TEST(LockName, LengthLimitCountsTheEscapedName) {
  // 400 raw bytes, 1200 once escaped: over the limit.
  EXPECT_THROW((void)distlock::lock_name("order", distlock::key_of(std::string(400, ':'))),
               distlock::ConfigError);
  // A long type alone is refused too.
  EXPECT_THROW((void)distlock::lock_name(std::string(distlock::kMaxLockNameLength + 1, 't'), {}),
               distlock::ConfigError);
}

TEST(LockName, ConfigErrorIsADistlockError) {
  try {
    (void)distlock::lock_name("order", distlock::key_of(std::string(5000, 'y')));
    ADD_FAILURE() << "no exception";
  } catch (const distlock::Error& e) {
    EXPECT_NE(dynamic_cast<const distlock::ConfigError*>(&e), nullptr);
  }
}

// ---------------------------------------------------------------------------------------
// to_key built-ins

TEST(ToKey, Integers) {
  EXPECT_EQ(distlock::to_key(0), "0");
  EXPECT_EQ(distlock::to_key(42), "42");
  EXPECT_EQ(distlock::to_key(-7), "-7");
  EXPECT_EQ(distlock::to_key(std::numeric_limits<std::uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(distlock::to_key(std::numeric_limits<std::int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(distlock::to_key(static_cast<short>(-12)), "-12");
  EXPECT_EQ(distlock::to_key(7u), "7");
}

TEST(ToKey, Bool) {
  EXPECT_EQ(distlock::to_key(true), "true");
  EXPECT_EQ(distlock::to_key(false), "false");
}

TEST(ToKey, CharIsTheCharacterNotItsCode) {
  EXPECT_EQ(distlock::to_key('x'), "x");
  EXPECT_EQ(distlock::to_key(':'), ":");
  EXPECT_EQ(distlock::lock_name("t", distlock::key_of(':')), "t:%3A");
}

TEST(ToKey, EnumsUseTheirUnderlyingValue) {
  EXPECT_EQ(distlock::to_key(plain_a), "3");
  EXPECT_EQ(distlock::to_key(plain_b), "-4");
  EXPECT_EQ(distlock::to_key(Scoped::v200), "200");
  EXPECT_EQ(distlock::to_key(Wide::big), "-9223372036854775808");
}

TEST(ToKey, Strings) {
  const std::string s = "alice";
  const std::string_view sv = "bob";
  const char* cstr = "carol";
  EXPECT_EQ(distlock::to_key(s), "alice");
  EXPECT_EQ(distlock::to_key(sv), "bob");
  EXPECT_EQ(distlock::to_key(cstr), "carol");
  EXPECT_EQ(distlock::to_key("dave"), "dave");
  EXPECT_EQ(distlock::to_key(std::string("a\0b", 3)), std::string("a\0b", 3));
  // to_key gives the raw value; escaping belongs to the lock name.
  EXPECT_EQ(distlock::to_key("a:b"), "a:b");
}

TEST(ToKey, UserTypeThroughArgumentDependentLookup) {
  EXPECT_EQ(distlock::to_key(shop::OrderId{7}), "ord-7");
  EXPECT_EQ(distlock::to_key(shop::Sku{"SKU-1"}), "SKU-1");
  EXPECT_EQ(distlock::lock_name("order", shop::OrderId{7}), "order:ord-7");
  EXPECT_EQ(distlock::lock_name("order", distlock::key_of("alice", shop::OrderId{8})),
            "order:alice:ord-8");
}

TEST(ToKey, AdlOverloadWinsOverTheBuiltInEnumConversion) {
  EXPECT_EQ(distlock::to_key(shop::Color::red), "red");
  EXPECT_EQ(distlock::to_key(shop::Color::green), "green");
}

TEST(ToKey, UserKeysAreEscapedInTheLockName) {
  EXPECT_EQ(distlock::lock_name("t", shop::Tricky{"x:y/z"}), "t:x%3Ay%2Fz");
  EXPECT_NE(distlock::lock_name("t", shop::Tricky{"x:y"}),
            distlock::lock_name("t", distlock::key_of("x", "y")));
}

TEST(ToKey, IsACallableObject) {
  // distlock::to_key is an object, so it can be passed to algorithms.
  const std::vector<int> ids{1, 2, 3};
  std::vector<std::string> keys;
  for (int id : ids) keys.push_back(distlock::to_key(id));
  EXPECT_EQ(keys, (std::vector<std::string>{"1", "2", "3"}));
  auto f = distlock::to_key;
  EXPECT_EQ(f(5), "5");
}

}  // namespace
