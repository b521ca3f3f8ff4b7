// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the lock-name encoding (runtime/api/key.cpp): escape_name_part, Key,
// key_of and lock_name. The property that matters is injectivity: two different (type, key
// parts) tuples must never share a lock name.
//
// Input format (text-friendly, so the seed corpus is readable):
//   byte 0     the number of key parts, 0..4: '0'..'4', or any other byte modulo 5;
//   the rest   fields, separated by a single '\'; "\\" is a literal backslash. The first
//              field is the type, the next ones the key parts (missing parts are empty,
//              extra fields are ignored). "2stock\sku-1\42" is type "stock", key
//              ("sku-1", "42").
// From the same bytes the fuzzer also derives other tuples: the same fields with every other
// part count, the whole rest as a type, and the rest cut (keeping or dropping the byte at the
// cut) at its separator-like bytes (':', '%', '/', '{', '}', '\') and at its middle. Every
// tuple is checked on its own, and all of them against each other:
//   - escape_name_part gives printable ASCII with no ':', '{', '}', '/'; '%' only as %XX
//     (upper-case hex) and only for the bytes key.h says are escaped; decoding it (below,
//     independently of the runtime) gives the input back;
//   - Key(part), Key::append and key_of(parts...) agree;
//   - lock_name returns "<escaped type>[:<escaped part>...]" and throws ConfigError (and
//     nothing else) exactly when that is longer than kMaxLockNameLength; the name splits at
//     its ':' and decodes back to the tuple;
//   - two different tuples never get the same name.
// A broken invariant prints the tuples and aborts, so libFuzzer saves the input.

#include <distlock/error.h>
#include <distlock/key.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::size_t kMaxParts = 4;
constexpr std::size_t kMaxCuts = 4;  // Separator-like cut points used, besides the middle.

struct Tuple {
  std::string type;
  std::vector<std::string> parts;  // Empty: Key() (one lock per type).

  bool operator==(const Tuple&) const = default;
};

std::string printable(std::string_view text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out + "\"";
}

std::string describe(const Tuple& t) {
  std::string out = "type " + printable(t.type) + ", key (";
  for (std::size_t i = 0; i < t.parts.size(); ++i) {
    if (i) out += ", ";
    out += printable(t.parts[i]);
  }
  return out + ")";
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "\nINVARIANT BROKEN: %s\n", what.c_str());
  std::abort();
}

// The bytes key.h documents as escaped.
// The checkers are left out of the coverage instrumentation: libFuzzer needs the coverage
// of the code under test and of the input's parsing, and comparison tracing in these
// byte loops costs more than all the rest.
#define NO_COVERAGE __attribute__((no_sanitize("coverage")))

NO_COVERAGE bool documented_escape(unsigned char byte) {
  return byte == '%' || byte == ':' || byte == '{' || byte == '}' || byte == '/' || byte < 0x20 ||
         byte > 0x7e;
}

NO_COVERAGE int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The inverse of escape_name_part, written from key.h's contract rather than key.cpp. Fails
// (with the reason) on text escape_name_part may not produce.
NO_COVERAGE std::string unescape_checked(std::string_view escaped, std::string_view raw) {
  std::string out(escaped.size(), '\0');
  std::size_t size = 0;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    const auto c = static_cast<unsigned char>(escaped[i]);
    if (c < 0x20 || c > 0x7e)
      fail("escape_name_part(" + printable(raw) + ") = " + printable(escaped) +
           " holds a byte outside printable ASCII");
    if (c == ':' || c == '{' || c == '}' || c == '/')
      fail("escape_name_part(" + printable(raw) + ") = " + printable(escaped) + " holds a '" +
           static_cast<char>(c) + "'");
    if (c != '%') {
      out[size++] = static_cast<char>(c);
      continue;
    }
    if (i + 2 >= escaped.size())
      fail("escape_name_part(" + printable(raw) + ") = " + printable(escaped) +
           " ends in a truncated %XX");
    const int hi = hex_digit(escaped[i + 1]);
    const int lo = hex_digit(escaped[i + 2]);
    if (hi < 0 || lo < 0)
      fail("escape_name_part(" + printable(raw) + ") = " + printable(escaped) +
           " holds a '%' not followed by two upper-case hex digits");
    const auto byte = static_cast<unsigned char>(hi * 16 + lo);
    if (!documented_escape(byte))
      fail("escape_name_part(" + printable(raw) + ") = " + printable(escaped) + " escapes " +
           printable(std::string(1, static_cast<char>(byte))) +
           ", which key.h does not list as escaped");
    out[size++] = static_cast<char>(byte);
    i += 2;
  }
  out.resize(size);
  return out;
}

// escape_name_part(raw), checked: its alphabet, its %XX, its length, its inverse.
NO_COVERAGE std::string escape_checked(std::string_view raw) {
  const std::string escaped = distlock::escape_name_part(raw);
  std::size_t expected_size = 0;
  for (const unsigned char c : raw) expected_size += documented_escape(c) ? 3 : 1;
  if (escaped.size() != expected_size)
    fail("escape_name_part(" + printable(raw) + ") = " + printable(escaped) + " is " +
         std::to_string(escaped.size()) + " bytes, not " + std::to_string(expected_size));
  if (unescape_checked(escaped, raw) != raw)
    fail("escape_name_part(" + printable(raw) + ") = " + printable(escaped) +
         " does not decode back to its input");
  return escaped;
}

distlock::Key key_by_key_of(const std::vector<std::string>& p) {
  switch (p.size()) {
    case 0:
      return distlock::key_of();
    case 1:
      return distlock::key_of(p[0]);
    case 2:
      return distlock::key_of(p[0], std::string_view(p[1]));
    case 3:
      return distlock::key_of(p[0], p[1], p[2]);
    default:
      return distlock::key_of(std::string_view(p[0]), p[1], p[2], p[3]);
  }
}

// Checks one tuple; returns its lock name as lock_name builds it (also when that is too
// long for lock_name to return it). `thorough` adds the checks that cost a pass more over
// the tuple's bytes (other ways to build the key, decoding the name), done for the input's
// own tuples; the cut tuples, there for the injectivity check, get the rest.
std::string check_tuple(const Tuple& t, bool thorough) {
  std::string expected = escape_checked(t.type);
  for (std::size_t i = 0; i < t.parts.size(); ++i) {
    expected += ':';
    expected += escape_checked(t.parts[i]);
  }

  distlock::Key by_append;
  for (const std::string& part : t.parts) by_append.append(part);
  if (by_append.has_parts() != !t.parts.empty()) fail(describe(t) + ": has_parts() is wrong");
  if (thorough) {
    // Three ways to build the key agree.
    const distlock::Key by_key_of = key_by_key_of(t.parts);
    if (by_key_of.has_parts() != by_append.has_parts())
      fail(describe(t) + ": has_parts() differs between key_of and Key::append");
    if (by_key_of.encoded() != by_append.encoded())
      fail(describe(t) + ": key_of gives " + printable(by_key_of.encoded()) +
           ", Key::append gives " + printable(by_append.encoded()));
    if (t.parts.size() == 1) {
      const distlock::Key single(t.parts[0]);
      if (!single.has_parts() || single.encoded() != by_append.encoded())
        fail(describe(t) + ": Key(part) differs from Key::append(part)");
    }
  }

  // lock_name: the expected name, or ConfigError exactly when that is too long.
  const bool too_long = expected.size() > distlock::kMaxLockNameLength;
  try {
    const std::string name = distlock::lock_name(t.type, by_append);
    if (too_long)
      fail(describe(t) + ": lock_name accepted a " + std::to_string(name.size()) +
           "-byte name, over the limit of " + std::to_string(distlock::kMaxLockNameLength));
    if (name != expected)
      fail(describe(t) + ": lock_name gives " + printable(name) + ", expected " +
           printable(expected));
  } catch (const distlock::ConfigError& e) {
    if (!too_long)
      fail(describe(t) + ": lock_name threw ConfigError for a " + std::to_string(expected.size()) +
           "-byte name (limit " + std::to_string(distlock::kMaxLockNameLength) + "): " + e.what());
    if (std::string_view(e.what()).empty() || e.lock().size() > 64 + 3)
      fail(describe(t) + ": ConfigError without a message, or naming the whole lock");
  } catch (const std::exception& e) {
    fail(describe(t) + ": lock_name threw something other than ConfigError: " + e.what());
  }

  if (!thorough) return expected;

  // The name splits at its ':' and decodes back to the tuple.
  Tuple decoded;
  std::size_t begin = 0;
  bool first = true;
  while (true) {
    const std::size_t colon = expected.find(':', begin);
    const std::string_view field = std::string_view(expected).substr(
        begin, colon == std::string::npos ? std::string::npos : colon - begin);
    std::string raw = unescape_checked(field, field);
    if (first)
      decoded.type = std::move(raw);
    else
      decoded.parts.push_back(std::move(raw));
    first = false;
    if (colon == std::string::npos) break;
    begin = colon + 1;
  }
  if (!(decoded == t))
    fail(describe(t) + ": its name " + printable(expected) + " decodes to " + describe(decoded));
  return expected;
}

// "\" separates fields, "\\" is a literal backslash.
std::vector<std::string> split_fields(std::string_view data) {
  std::vector<std::string> fields(1);
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] != '\\') {
      fields.back() += data[i];
    } else if (i + 1 < data.size() && data[i + 1] == '\\') {
      fields.back() += '\\';
      ++i;
    } else {
      fields.emplace_back();
    }
  }
  return fields;
}

Tuple fields_tuple(const std::vector<std::string>& fields, std::size_t parts) {
  Tuple t{fields[0], {}};
  for (std::size_t i = 1; i <= parts; ++i)
    t.parts.push_back(i < fields.size() ? fields[i] : std::string());
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) {
    check_tuple(Tuple{}, true);
    return 0;
  }
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const unsigned char selector = data[0];
  const std::size_t wanted =
      selector >= '0' && selector <= '4' ? selector - '0' : selector % (kMaxParts + 1);
  const std::string_view rest = input.substr(1);

  std::vector<Tuple> tuples;
  // The input's own tuple first, then the same fields with every other part count.
  const std::vector<std::string> fields = split_fields(rest);
  tuples.push_back(fields_tuple(fields, wanted));
  for (std::size_t parts = 0; parts <= kMaxParts; ++parts)
    if (parts != wanted) tuples.push_back(fields_tuple(fields, parts));

  const std::size_t thorough = tuples.size();

  // The raw rest as a type, and cut at separator-like bytes and at the middle.
  tuples.push_back(Tuple{std::string(rest), {}});
  std::vector<std::size_t> cuts;
  for (std::size_t i = 0; i < rest.size() && cuts.size() < kMaxCuts; ++i)
    if (std::string_view(":%/{}\\").find(rest[i]) != std::string_view::npos) cuts.push_back(i);
  if (!rest.empty()) cuts.push_back(rest.size() / 2);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  // Every cut is < rest.size(): "keeping" cuts the rest before the byte, "dropping" also
  // leaves the byte out (as a separator would be).
  for (std::size_t a = 0; a < cuts.size(); ++a) {
    const std::size_t i = cuts[a];
    const std::string head(rest.substr(0, i));
    tuples.push_back(Tuple{head, {std::string(rest.substr(i))}});
    tuples.push_back(Tuple{head, {std::string(rest.substr(i + 1))}});
    for (std::size_t b = a + 1; b < cuts.size(); ++b) {
      const std::size_t j = cuts[b];
      tuples.push_back(
          Tuple{head, {std::string(rest.substr(i, j - i)), std::string(rest.substr(j))}});
      tuples.push_back(Tuple{
          head, {std::string(rest.substr(i + 1, j - i - 1)), std::string(rest.substr(j + 1))}});
    }
  }

  // Injectivity: one name, one tuple.
  std::map<std::string, std::size_t> owner;
  for (std::size_t n = 0; n < tuples.size(); ++n) {
    const std::string name = check_tuple(tuples[n], n < thorough);
    const auto [it, inserted] = owner.emplace(name, n);
    if (!inserted && !(tuples[it->second] == tuples[n]))
      fail("two tuples share the lock name " + printable(name) + ": " +
           describe(tuples[it->second]) + " and " + describe(tuples[n]));
  }
  return 0;
}
