// SPDX-License-Identifier: Apache-2.0
// The ACLs of the nodes the backend creates. Without credentials every node is open. With
// them (digest), nodes belong to the authenticated user, whom the server puts in place of
// the "auth" entry: others may read them, and may create lock types under /distlock, but
// cannot create contenders in, or delete contenders from, a lock the user created
// (ZooKeeper checks a delete against the parent's ACL).
#pragma once

#include <vector>

#include <zookeeper/zookeeper.h>

namespace distlock::detail::zookeeper {

class Acls {
 public:
  explicit Acls(bool authenticated);
  Acls(const Acls&) = delete;
  Acls& operator=(const Acls&) = delete;

  // /distlock: the user, and others may read and create.
  const ACL_vector& root() const { return root_; }
  // Lock nodes and contenders: the user, and others may read.
  const ACL_vector& lock() const { return lock_; }

 private:
  std::vector<ACL> root_entries_;
  std::vector<ACL> lock_entries_;
  ACL_vector root_{};
  ACL_vector lock_{};
};

}  // namespace distlock::detail::zookeeper
