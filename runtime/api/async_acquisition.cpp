// SPDX-License-Identifier: Apache-2.0
#include <distlock/async_acquisition.h>
#include <distlock/error.h>

#include "core/async_operation.h"

namespace distlock {

AsyncAcquisition::AsyncAcquisition(std::shared_ptr<detail::AsyncOperation> operation)
    : operation_(std::move(operation)) {}

void AsyncAcquisition::cancel() const {
  if (operation_) operation_->cancel();
}

namespace detail {

void AsyncOperation::cancel() const {
  // Gone: it has ended, and its handler has the outcome.
  const std::shared_ptr<PendingAcquisition> pending = pending_.lock();
  if (!pending) return;
  pending->withdraw(std::make_exception_ptr(AcquisitionCancelled(
      lock_, *server_, "cancelled while waiting: it holds nothing and left no place behind")));
}

}  // namespace detail
}  // namespace distlock
