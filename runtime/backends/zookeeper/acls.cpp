// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/acls.h"

#include <cstdint>

namespace distlock::detail::zookeeper {
namespace {

// The C structs take mutable strings; the client only reads them.
char kAuthScheme[] = "auth";
char kNoId[] = "";
char kWorldScheme[] = "world";
char kAnyone[] = "anyone";

ACL entry(int perms, char* scheme, char* id) { return ACL{perms, Id{scheme, id}}; }

ACL_vector view(std::vector<ACL>& entries) {
  return ACL_vector{static_cast<std::int32_t>(entries.size()), entries.data()};
}

}  // namespace

Acls::Acls(bool authenticated) {
  if (!authenticated) {
    root_ = ZOO_OPEN_ACL_UNSAFE;
    lock_ = ZOO_OPEN_ACL_UNSAFE;
    return;
  }
  // The creator's entry of ZOO_CREATOR_ALL_ACL, and world:anyone.
  root_entries_ = {entry(ZOO_PERM_ALL, kAuthScheme, kNoId),
                   entry(ZOO_PERM_READ | ZOO_PERM_CREATE, kWorldScheme, kAnyone)};
  lock_entries_ = {entry(ZOO_PERM_ALL, kAuthScheme, kNoId),
                   entry(ZOO_PERM_READ, kWorldScheme, kAnyone)};
  root_ = view(root_entries_);
  lock_ = view(lock_entries_);
}

}  // namespace distlock::detail::zookeeper
