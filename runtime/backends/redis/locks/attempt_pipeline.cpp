// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/locks/attempt_pipeline.h"

#include <algorithm>
#include <utility>

namespace distlock::detail::redis {

void AttemptPipeline::sent(const std::shared_ptr<SharedConnection>& connection) {
  ++unsettled_;
  if (std::find(unread_.begin(), unread_.end(), connection) == unread_.end())
    unread_.push_back(connection);
  if (read_posted_) return;
  read_posted_ = true;
  executor_.post([this] { read(); });
}

void AttemptPipeline::read() {
  read_posted_ = false;
  std::vector<std::shared_ptr<SharedConnection>> connections;
  connections.swap(unread_);
  // The replies are handed out here, to the attempts' handlers; a thread of the client that
  // waits for a reply of its own may read some of them first, and then post them here.
  for (const auto& connection : connections) connection->read_owed();
  if (unsettled_ == 0) return;
  // An attempt sent again in another form (its script had left the server's cache) is owed
  // anew; what was read elsewhere is on its way as a task, which goes before this read.
  for (const auto& connection : connections)
    if (connection->owes_unawaited() &&
        std::find(unread_.begin(), unread_.end(), connection) == unread_.end())
      unread_.push_back(connection);
  if (unread_.empty() || read_posted_) return;
  read_posted_ = true;
  executor_.post([this] { read(); });
}

}  // namespace distlock::detail::redis
