// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/context.h"

#include "backends/zookeeper/status.h"
#include "util/process_label.h"

namespace distlock::detail::zookeeper {

std::string ZkContext::node_data(std::string_view acquisition_id) const {
  std::string data = process_label();
  data += ' ';
  data += acquisition_id;
  return data;
}

std::shared_ptr<Session> ZkContext::ready_session(std::string_view lock) const {
  if (auto session = keeper.ready(SteadyClock::now() + settings.connect_timeout)) return session;
  const auto current = keeper.current();
  std::string why = "not connected to ZooKeeper within " +
                    std::to_string(settings.connect_timeout.count()) + " ms (connect_timeout)";
  if (current && current->auth_failed()) why += "; " + current->auth_error();
  throw status::unavailable(lock, settings.server, why);
}

}  // namespace distlock::detail::zookeeper
