// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/key_layout.h"

#include <algorithm>

namespace distlock::detail::etcd {
namespace {

bool is_lower_hex(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

void sort_oldest_first(std::vector<ListedKey>& keys) {
  std::sort(keys.begin(), keys.end(), [](const ListedKey& a, const ListedKey& b) {
    return a.create_revision < b.create_revision;
  });
}

std::string sub_prefix(std::string_view prefix, std::string_view name) {
  std::string path(prefix);
  path += '/';
  path += name;
  return path;
}

}  // namespace

std::string lock_prefix(std::string_view name) {
  std::string prefix(kLockRoot);
  prefix += '/';
  const auto colon = name.find(':');
  prefix += name.substr(0, colon);
  if (colon != std::string_view::npos) {
    prefix += '/';
    prefix += name.substr(colon + 1);
  }
  return prefix;
}

std::string contender_key(std::string_view prefix, Recipe recipe, std::int64_t lease) {
  std::string key(prefix);
  if (recipe == Recipe::read) key += "/read";
  if (recipe == Recipe::write) key += "/write";
  key += '/';
  // Go's fmt "%x" of the lease id: lower case, no leading zeros.
  auto id = static_cast<std::uint64_t>(lease);
  std::string hex;
  do {
    hex += "0123456789abcdef"[id % 16];
    id /= 16;
  } while (id != 0);
  key.append(hex.rbegin(), hex.rend());
  return key;
}

std::string children_range_end(std::string_view prefix) {
  // '/' + 1 is '0': the range [prefix/, prefix0) holds every key that starts with prefix/.
  std::string end(prefix);
  end += '0';
  return end;
}

std::string semaphore_entry(std::string_view prefix) { return sub_prefix(prefix, "locks"); }

std::string semaphore_permits(std::string_view prefix) { return sub_prefix(prefix, "leases"); }

std::optional<LockKey> parse_lock_key(std::string_view key) {
  const std::string root = std::string(kLockRoot) + '/';
  if (!key.starts_with(root)) return std::nullopt;
  std::vector<std::string_view> parts;
  for (std::string_view rest = key.substr(root.size());;) {
    const auto slash = rest.find('/');
    parts.push_back(rest.substr(0, slash));
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  if (parts.size() < 2 || parts.size() > 4 || !is_lower_hex(parts.back())) return std::nullopt;
  const auto role_of = [](std::string_view part) -> std::optional<KeyRole> {
    if (part == "read") return KeyRole::read;
    if (part == "write") return KeyRole::write;
    if (part == "locks") return KeyRole::semaphore_entry;
    if (part == "leases") return KeyRole::permit;
    return std::nullopt;
  };
  LockKey found;
  found.lock = std::string(parts[0]);
  // type/hex, type/key/hex, type/role/hex, type/key/role/hex.
  std::optional<KeyRole> role;
  if (parts.size() >= 3) role = role_of(parts[parts.size() - 2]);
  const std::size_t name_parts = parts.size() - (role ? 2 : 1);
  if (name_parts == 0 || name_parts > 2) return std::nullopt;
  if (name_parts == 2) found.lock += ':' + std::string(parts[1]);
  found.role = role.value_or(KeyRole::mutex);
  return found;
}

std::vector<ListedKey> contenders_of(
    std::string_view prefix, const google::protobuf::RepeatedPtrField<mvccpb::KeyValue>& kvs) {
  std::vector<ListedKey> found;
  for (const auto& kv : kvs) {
    const std::string_view key = kv.key();
    if (key.size() <= prefix.size() + 1 || !key.starts_with(prefix) || key[prefix.size()] != '/')
      continue;
    if (!is_lower_hex(key.substr(prefix.size() + 1))) continue;
    found.push_back({std::string(key), kv.create_revision()});
  }
  sort_oldest_first(found);
  return found;
}

std::vector<ListedKey> blocking_keys(
    std::string_view prefix, Recipe recipe,
    const google::protobuf::RepeatedPtrField<mvccpb::KeyValue>& kvs) {
  if (recipe == Recipe::mutex) return contenders_of(prefix, kvs);
  auto found = contenders_of(sub_prefix(prefix, "write"), kvs);
  if (recipe == Recipe::write) {
    auto readers = contenders_of(sub_prefix(prefix, "read"), kvs);
    found.insert(found.end(), readers.begin(), readers.end());
    sort_oldest_first(found);
  }
  return found;
}

}  // namespace distlock::detail::etcd
