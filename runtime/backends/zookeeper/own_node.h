// SPDX-License-Identifier: Apache-2.0
// A contender node an acquisition created. Unless the lock was won (keep) or the node is
// known to be gone, it is deleted when the acquisition ends: at once if the server answers
// (within the acquisition's deadline, or the grace after it: core/step_deadline.h), else by
// the reaper, so a waiter that gives up or fails leaves no orphan behind.
#pragma once

#include <memory>
#include <string>

#include "backends/zookeeper/context.h"
#include "core/step_deadline.h"

namespace distlock::detail::zookeeper {

class OwnNode {
 public:
  OwnNode(const ZkContext& context, std::shared_ptr<Session> session, std::string path,
          const AcquisitionDeadline& deadline);
  ~OwnNode();
  OwnNode(const OwnNode&) = delete;
  OwnNode& operator=(const OwnNode&) = delete;

  const std::string& path() const { return path_; }
  // The lock was won: the node stays, held.
  void keep() { settled_ = true; }
  // The node is gone already (its session ended, or someone deleted it).
  void gone() { settled_ = true; }

 private:
  const ZkContext& context_;
  const std::shared_ptr<Session> session_;
  const std::string path_;
  const AcquisitionDeadline deadline_;
  bool settled_ = false;
};

}  // namespace distlock::detail::zookeeper
