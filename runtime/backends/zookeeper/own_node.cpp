// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/own_node.h"

#include "backends/zookeeper/status.h"

namespace distlock::detail::zookeeper {

OwnNode::OwnNode(const ZkContext& context, std::shared_ptr<Session> session, std::string path,
                 const AcquisitionDeadline& deadline)
    : context_(context),
      session_(std::move(session)),
      path_(std::move(path)),
      deadline_(deadline) {}

OwnNode::~OwnNode() {
  if (settled_ || session_->dead()) return;
  if (session_->ready()) {
    const int rc = context_.requests.remove(*session_, path_, -1, deadline_.for_steps()).rc;
    if (!status::connection_trouble(rc)) return;
  }
  context_.reaper.remove(path_, session_->id());
}

}  // namespace distlock::detail::zookeeper
