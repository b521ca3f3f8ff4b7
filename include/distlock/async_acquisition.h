// SPDX-License-Identifier: Apache-2.0
// An acquisition that waits without blocking a thread (Client::acquire_async), as its caller
// holds it: to cancel it.
#pragma once

#include <memory>

namespace distlock {

namespace detail {
class AsyncOperation;
}

// Copyable: every copy cancels the same acquisition.
class AsyncAcquisition {
 public:
  // Refers to no acquisition: cancel() does nothing.
  AsyncAcquisition() = default;
  // The library's own: Client::acquire_async makes them.
  explicit AsyncAcquisition(std::shared_ptr<detail::AsyncOperation> operation);

  // Withdraws the acquisition if it still waits: its place in a fair lock's queue, its intent
  // to write or its request for a permit goes at once, and its handler gets
  // AcquisitionCancelled. Does nothing once the acquisition has completed (its handler has the
  // lease, or is about to). Thread-safe.
  void cancel() const;

 private:
  std::shared_ptr<detail::AsyncOperation> operation_;
};

}  // namespace distlock
