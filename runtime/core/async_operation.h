// SPDX-License-Identifier: Apache-2.0
// What an AsyncAcquisition handle refers to: the backend's pending acquisition, and the names
// its cancellation error gives. The acquisition keeps itself while it waits; a handle kept
// after it ended (in a cancellation slot, say) keeps nothing of it.
#pragma once

#include <memory>
#include <string>

#include "backends/backend.h"

namespace distlock::detail {

class AsyncOperation {
 public:
  AsyncOperation(std::string lock, std::shared_ptr<const std::string> server,
                 std::weak_ptr<PendingAcquisition> pending)
      : lock_(std::move(lock)), server_(std::move(server)), pending_(std::move(pending)) {}

  void cancel() const;

 private:
  const std::string lock_;
  const std::shared_ptr<const std::string> server_;
  const std::weak_ptr<PendingAcquisition> pending_;
};

}  // namespace distlock::detail
