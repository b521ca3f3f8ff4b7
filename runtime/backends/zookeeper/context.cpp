#include "backends/zookeeper/context.h"

#include "backends/zookeeper/status.h"

namespace distlock::detail::zookeeper {

std::shared_ptr<Session> ZkContext::ready_session(std::string_view lock) const {
  if (auto session = keeper.ready(SteadyClock::now() + settings.connect_timeout)) return session;
  const auto current = keeper.current();
  std::string why = "not connected to ZooKeeper within " +
                    std::to_string(settings.connect_timeout.count()) + " ms (connect_timeout)";
  if (current && current->auth_failed()) why += "; " + current->auth_error();
  throw status::unavailable(lock, settings.server, why);
}

}  // namespace distlock::detail::zookeeper
