#include "backends/zookeeper/wakeup.h"

namespace distlock::detail::zookeeper {

void Wakeup::notify(Cause cause) {
  {
    std::lock_guard lock(mutex_);
    if (cause_ != Cause::none) return;
    cause_ = cause;
  }
  notified_.notify_all();
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

}  // namespace distlock::detail::zookeeper
