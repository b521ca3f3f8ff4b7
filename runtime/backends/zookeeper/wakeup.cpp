// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/wakeup.h"

namespace distlock::detail::zookeeper {

Wakeup::Wakeup(OnNodeEvent on_node_event, OnWoken on_woken)
    : on_node_event_(std::move(on_node_event)), on_woken_(std::move(on_woken)) {}

void Wakeup::node_event(Session& session) { on_node_event_(session, shared_from_this()); }

void Wakeup::watch_failed(int rc) { wake(Cause::watch_failed, rc); }

void Wakeup::notify(Cause cause) { wake(cause, 0); }

void Wakeup::wake(Cause cause, int failure) {
  {
    std::lock_guard lock(mutex_);
    if (cause_ != Cause::none) return;
    cause_ = cause;
    failure_ = failure;
  }
  notified_.notify_all();
  if (on_woken_) on_woken_();
}

Wakeup::Cause Wakeup::wait_until(SteadyClock::time_point until) {
  std::unique_lock lock(mutex_);
  const auto woken = [this] { return cause_ != Cause::none; };
  if (until == SteadyClock::time_point::max())
    notified_.wait(lock, woken);
  else
    notified_.wait_until(lock, until, woken);
  return cause_;
}

Wakeup::Cause Wakeup::cause() const {
  std::lock_guard lock(mutex_);
  return cause_;
}

int Wakeup::failure() const {
  std::lock_guard lock(mutex_);
  return failure_;
}

}  // namespace distlock::detail::zookeeper
