// SPDX-License-Identifier: Apache-2.0
// Lock keys: the values that name the locked thing. The lock name is
// "<type>:<part>:<part>..." with every part escaped, so distinct keys never share a name.
//
// to_key is the customization point: built in for integers, strings, string views, enums,
// bool and char; for your own types, declare `std::string to_key(const T&)` in T's
// namespace, where argument-dependent lookup finds it.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace distlock {

namespace key_detail {

// Blocks ordinary lookup of distlock::to_key (an object), so the call below is resolved by
// argument-dependent lookup alone.
void to_key() = delete;

template <class T, class = void>
inline constexpr bool kHasAdlToKey = false;
template <class T>
inline constexpr bool kHasAdlToKey<
    T, std::enable_if_t<
           std::is_convertible_v<decltype(to_key(std::declval<const T&>())), std::string_view>>> =
    true;

template <class>
inline constexpr bool kNoKey = false;

struct ToKeyFn {
  template <class T>
  std::string operator()(const T& value) const {
    if constexpr (kHasAdlToKey<T>) {
      return std::string(std::string_view(to_key(value)));
    } else if constexpr (std::is_same_v<T, bool>) {
      return value ? "true" : "false";
    } else if constexpr (std::is_same_v<T, char>) {
      return std::string(1, value);
    } else if constexpr (std::is_integral_v<T>) {
      return std::to_string(value);
    } else if constexpr (std::is_enum_v<T>) {
      return std::to_string(static_cast<std::underlying_type_t<T>>(value));
    } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      return std::string(std::string_view(value));
    } else {
      static_assert(kNoKey<T>,
                    "distlock::to_key: this type cannot name a lock. Declare "
                    "`std::string to_key(const YourType&)` in the type's namespace, or key on "
                    "one of its fields: [[distlock::key(\"field\")]]");
      return {};
    }
  }
};

}  // namespace key_detail

inline constexpr key_detail::ToKeyFn to_key{};

// Escapes one key part (or a type): '%', ':', '{', '}', '/' and every byte outside printable
// ASCII become %XX. Injective, and the result is safe as a Redis hash tag and a ZooKeeper
// node name.
std::string escape_name_part(std::string_view raw);

// The key of one lock: zero or more parts. No part at all means one lock per type.
class Key {
 public:
  Key() = default;

  // A key of one part: anything to_key() takes (the top of this file).
  template <class Part, std::enable_if_t<!std::is_same_v<std::decay_t<Part>, Key>, int> = 0>
  Key(const Part& part) {  // NOLINT(google-explicit-constructor)
    append(to_key(part));
  }

  // Appends one part, escaping it.
  void append(std::string_view raw_part);
  // Appends every part of `other`, already escaped.
  void append_parts(const Key& other);
  // False for a key of no part: one lock per type.
  bool has_parts() const { return has_parts_; }
  // The parts, escaped and joined by ':', as the lock name ends.
  const std::string& encoded() const { return encoded_; }

 private:
  std::string encoded_;
  bool has_parts_ = false;
};

// key_of(user, order.id) is the key "<user>:<order.id>".
template <class... Parts>
Key key_of(const Parts&... parts) {
  Key key;
  (key.append(to_key(parts)), ...);
  return key;
}

// Locks longer than this are refused with ConfigError, before any server is asked.
inline constexpr std::size_t kMaxLockNameLength = 1024;

// "<escaped type>" or "<escaped type>:<key>". Throws ConfigError when too long.
std::string lock_name(std::string_view type, const Key& key);

}  // namespace distlock
