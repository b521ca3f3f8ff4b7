// SPDX-License-Identifier: Apache-2.0
// An asynchronous acquisition that starts later (after its client's release of the same lock,
// core/unawaited_releases.h): withdrawn before it starts, it completes with the withdrawal's
// reason and never starts; withdrawn while it starts, the withdrawal goes to it once started.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>

#include "backends/backend.h"

namespace distlock::detail {

class DeferredAcquisition final : public PendingAcquisition {
 public:
  // `complete_withdrawn` completes the acquisition that never started with its reason.
  explicit DeferredAcquisition(std::function<void(std::exception_ptr)> complete_withdrawn)
      : complete_withdrawn_(std::move(complete_withdrawn)) {}

  // Whether it may start now: false once withdrawn. A true answer must be followed by
  // started().
  bool begin_start() {
    const std::lock_guard lock(mutex_);
    if (settled_) return false;
    starting_ = true;
    return true;
  }
  // The acquisition has started as `pending` (null: it could not start, and has completed).
  void started(const std::shared_ptr<PendingAcquisition>& pending) {
    std::exception_ptr withdrawn_meanwhile;
    {
      const std::lock_guard lock(mutex_);
      starting_ = false;
      settled_ = !pending;
      pending_ = pending;
      withdrawn_meanwhile = std::exchange(withdrawn_while_starting_, nullptr);
    }
    if (pending && withdrawn_meanwhile) pending->withdraw(std::move(withdrawn_meanwhile));
  }

  void withdraw(std::exception_ptr why) override {
    std::shared_ptr<PendingAcquisition> pending;
    {
      const std::lock_guard lock(mutex_);
      if (settled_) return;
      if (starting_) {
        withdrawn_while_starting_ = std::move(why);
        return;
      }
      pending = pending_;
      if (!pending) settled_ = true;
    }
    if (pending)
      pending->withdraw(std::move(why));
    else
      complete_withdrawn_(std::move(why));
  }

 private:
  const std::function<void(std::exception_ptr)> complete_withdrawn_;
  std::mutex mutex_;
  // Nothing is left to withdraw: it was withdrawn before it started, or could not start.
  bool settled_ = false;  // under mutex_, as all below
  bool starting_ = false;
  std::exception_ptr withdrawn_while_starting_;
  std::shared_ptr<PendingAcquisition> pending_;
};

}  // namespace distlock::detail
