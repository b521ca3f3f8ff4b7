// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/lock_nodes.h"

#include <algorithm>
#include <cstdint>
#include <random>

#include "util/hex.h"

namespace distlock::detail::zookeeper {
namespace {

constexpr std::string_view kProtectedPrefix = "_c_";  // Curator's protected mode
constexpr std::size_t kUuidLength = 36;
constexpr std::string_view kExclusiveMarker = "lock-";  // InterProcessMutex
constexpr std::string_view kReadMarker = "__READ__";    // InterProcessReadWriteLock
constexpr std::string_view kWriteMarker = "__WRIT__";
constexpr std::string_view kLeaseMarker = "lease-";  // InterProcessSemaphoreV2's leases
constexpr std::string_view kLatchMarker = "latch-";  // LeaderLatch

// Curator's protected-mode node name before its sequence number: "_c_<uuid>-<marker>".
std::string protected_prefix(std::string_view uuid, std::string_view marker) {
  std::string prefix(kProtectedPrefix);
  prefix += uuid;
  prefix += '-';
  prefix += marker;
  return prefix;
}

std::string_view marker_of(Mode mode) {
  switch (mode) {
    case Mode::read:
      return kReadMarker;
    case Mode::write:
      return kWriteMarker;
    case Mode::exclusive:
      break;
  }
  return kExclusiveMarker;
}

// "", "." and ".." cannot be path components; the name escaping never writes '%' followed by
// "2E" or "5F" ('.' and '_' are left as they are), nor a lone '%', so these stay distinct.
std::string component(std::string_view part) {
  if (part.empty()) return "%";
  if (part == ".") return "%2E";
  if (part == "..") return "%2E%2E";
  return std::string(part);
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_uuid(std::string_view text) {
  if (text.size() != kUuidLength) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? text[i] != '-' : !is_hex(text[i])) return false;
  }
  return true;
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string lock_path(std::string_view name) {
  std::string path(kLockRoot);
  path += '/';
  const auto colon = name.find(':');
  path += component(name.substr(0, colon));
  if (colon == std::string_view::npos) return path;
  const std::string_view key = name.substr(colon + 1);
  path += '/';
  // Contenders are named "_c_...": a key node beside them must not look like one.
  if (key.starts_with('_')) {
    path += "%5F";
    path += key.substr(1);
  } else {
    path += component(key);
  }
  return path;
}

std::string name_part(std::string_view component) {
  if (component == "%") return {};
  if (component == "%2E") return ".";
  if (component == "%2E%2E") return "..";
  // Appending rather than "_" + std::string(...): GCC 12 at -O3 warns (-Wrestrict) on the
  // latter, a false positive (GCC bug 105329) that a Release build would show every user.
  if (component.starts_with("%5F")) {
    std::string name = "_";
    name += component.substr(3);
    return name;
  }
  return std::string(component);
}

std::vector<std::string> lock_path_parents(std::string_view path) {
  std::vector<std::string> parents;
  for (auto slash = path.find('/', 1); slash != std::string_view::npos;
       slash = path.find('/', slash + 1))
    parents.emplace_back(path.substr(0, slash));
  return parents;
}

std::string random_uuid() {
  thread_local std::mt19937_64 generator = [] {
    std::random_device source;
    std::seed_seq seed{source(), source(), source(), source(), source(), source()};
    return std::mt19937_64(seed);
  }();
  std::uint64_t high = generator();
  std::uint64_t low = generator();
  high = (high & ~0xF000ULL) | 0x4000ULL;                          // version 4
  low = (low & ~(0xC000000000000000ULL)) | 0x8000000000000000ULL;  // IETF variant
  std::string uuid;
  uuid.reserve(kUuidLength);
  append_hex(uuid, high >> 32, 8);
  uuid += '-';
  append_hex(uuid, high >> 16, 4);
  uuid += '-';
  append_hex(uuid, high, 4);
  uuid += '-';
  append_hex(uuid, low >> 48, 4);
  uuid += '-';
  append_hex(uuid, low, 12);
  return uuid;
}

std::string contender_prefix(std::string_view uuid, Mode mode) {
  return protected_prefix(uuid, marker_of(mode));
}

std::string latch_prefix(std::string_view uuid) { return protected_prefix(uuid, kLatchMarker); }

std::string semaphore_mutex_path(std::string_view lock_path) {
  return std::string(lock_path) + "/locks";
}

std::string semaphore_leases_path(std::string_view lock_path) {
  return std::string(lock_path) + "/leases";
}

std::string lease_prefix(std::string_view uuid) { return protected_prefix(uuid, kLeaseMarker); }

std::optional<Contender> parse_contender(std::string_view name) {
  constexpr std::size_t kMarkerAt = kProtectedPrefix.size() + kUuidLength + 1;
  if (name.size() <= kMarkerAt || !name.starts_with(kProtectedPrefix) ||
      !is_uuid(name.substr(kProtectedPrefix.size(), kUuidLength)) || name[kMarkerAt - 1] != '-')
    return std::nullopt;
  const std::string_view rest = name.substr(kMarkerAt);
  for (const auto& [marker, kind] : {std::pair{kExclusiveMarker, ContenderKind::exclusive},
                                     std::pair{kLatchMarker, ContenderKind::exclusive},
                                     std::pair{kReadMarker, ContenderKind::read},
                                     std::pair{kWriteMarker, ContenderKind::write}}) {
    if (!rest.starts_with(marker)) continue;
    const std::string_view sequence = rest.substr(marker.size());
    if (!all_digits(sequence)) return std::nullopt;
    return Contender{std::string(name), kind, std::string(sequence)};
  }
  return std::nullopt;
}

std::vector<Contender> contenders(const std::vector<std::string>& children) {
  std::vector<Contender> found;
  found.reserve(children.size());
  for (const auto& child : children)
    if (auto contender = parse_contender(child)) found.push_back(std::move(*contender));
  // As Curator compares them: the text after the marker (ten digits), then the whole name.
  std::sort(found.begin(), found.end(), [](const Contender& a, const Contender& b) {
    return a.sequence != b.sequence ? a.sequence < b.sequence : a.name < b.name;
  });
  return found;
}

bool named_with_uuid(std::string_view name, std::string_view uuid) {
  return name.size() > kProtectedPrefix.size() + uuid.size() &&
         name.starts_with(kProtectedPrefix) &&
         name.substr(kProtectedPrefix.size(), uuid.size()) == uuid &&
         name[kProtectedPrefix.size() + uuid.size()] == '-';
}

std::optional<std::string> find_by_uuid(const std::vector<std::string>& children,
                                        std::string_view uuid) {
  for (const auto& child : children)
    if (named_with_uuid(child, uuid)) return child;
  return std::nullopt;
}

Verdict judge(const std::vector<Contender>& ordered, std::string_view ours, Mode mode) {
  Verdict verdict;
  const auto at = std::find_if(ordered.begin(), ordered.end(),
                               [&](const Contender& contender) { return contender.name == ours; });
  if (at == ordered.end()) return verdict;
  verdict.present = true;
  if (mode != Mode::read) {
    verdict.granted = at == ordered.begin();
    if (!verdict.granted) verdict.watch = std::prev(at)->name;
    return verdict;
  }
  // A reader waits only for exclusive and write contenders before it, and behind the nearest
  // one: when it goes, either the reader is free or another such contender is still ahead.
  for (auto before = at; before != ordered.begin();) {
    --before;
    if (before->kind != ContenderKind::read) {
      verdict.watch = before->name;
      return verdict;
    }
  }
  verdict.granted = true;
  return verdict;
}

}  // namespace distlock::detail::zookeeper
