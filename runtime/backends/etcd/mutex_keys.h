// SPDX-License-Identifier: Apache-2.0
// Where a lock lives in etcd: the layout of etcd's concurrency.Mutex, so that `etcdctl lock`
// and a Go service's concurrency.NewMutex on the same prefix exclude distlock and are
// excluded by it.
//
//   lock "order"       -> prefix /distlock/order
//   lock "order:42"    -> prefix /distlock/order/42
//   contender          -> <prefix>/<lease id in lower-case hex>, put under that lease
//
// The contender with the lowest create revision holds the lock; its create revision is the
// fence. Lock names escape '/' (design.md, "Lock name encoding"), so the only keys below a
// prefix that are not its contenders are other locks' (those of "order:42" below "order"):
// a contender is a key one level below the prefix whose last part is hexadecimal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "etcd_rpc.pb.h"

namespace distlock::detail::etcd {

inline constexpr std::string_view kLockRoot = "/distlock";

std::string lock_prefix(std::string_view name);
std::string contender_key(std::string_view prefix, std::int64_t lease);
// The end of the range of every key below `prefix` + '/' (etcd's prefix range).
std::string children_range_end(std::string_view prefix);

struct Contender {
  std::string key;
  std::int64_t create_revision = 0;
};

// The contenders among `kvs` (keys below `prefix`), oldest first.
std::vector<Contender> contenders_of(
    std::string_view prefix, const google::protobuf::RepeatedPtrField<mvccpb::KeyValue>& kvs);

}  // namespace distlock::detail::etcd
