// SPDX-License-Identifier: Apache-2.0
#include <distlock/error.h>
#include <distlock/key.h>

#include "util/hex.h"

namespace distlock {
namespace {

bool needs_escape(unsigned char byte) {
  switch (byte) {
    case '%':
    case ':':
    case '{':
    case '}':
    case '/':
      return true;
    default:
      return byte < 0x20 || byte > 0x7e;
  }
}

}  // namespace

std::string escape_name_part(std::string_view raw) {
  std::string escaped;
  escaped.reserve(raw.size());
  for (const char c : raw) {
    const auto byte = static_cast<unsigned char>(c);
    if (needs_escape(byte)) {
      escaped += '%';
      detail::append_hex(escaped, byte, 2, detail::HexCase::upper);
    } else {
      escaped += c;
    }
  }
  return escaped;
}

void Key::append(std::string_view raw_part) {
  if (has_parts_) encoded_ += ':';
  encoded_ += escape_name_part(raw_part);
  has_parts_ = true;
}

void Key::append_parts(const Key& other) {
  if (!other.has_parts_) return;
  if (has_parts_) encoded_ += ':';
  encoded_ += other.encoded_;
  has_parts_ = true;
}

std::string lock_name(std::string_view type, const Key& key) {
  std::string name = escape_name_part(type);
  if (key.has_parts()) {
    name += ':';
    name += key.encoded();
  }
  if (name.size() > kMaxLockNameLength) {
    std::string shown = name.substr(0, 64) + "...";
    throw ConfigError(shown, "",
                      "the lock name is " + std::to_string(name.size()) +
                          " bytes long, over the limit of " + std::to_string(kMaxLockNameLength) +
                          "; key on a shorter value (an id rather than a whole document)");
  }
  return name;
}

}  // namespace distlock
