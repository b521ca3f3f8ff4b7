// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/context.h"

#include <chrono>
#include <optional>

#include "backends/zookeeper/status.h"
#include "util/process_label.h"

namespace distlock::detail::zookeeper {

std::string ZkContext::node_data(std::string_view acquisition_id) const {
  std::string data = process_label();
  data += ' ';
  data += acquisition_id;
  return data;
}

namespace {

// Why no session is ready, after waiting since `since`.
std::string not_connected(const SessionKeeper& keeper, SteadyClock::time_point since,
                          bool rode_through, const ZooKeeperSettings& settings) {
  std::string why = "not connected to ZooKeeper within ";
  if (rode_through) {
    why += std::to_string(std::chrono::duration_cast<Millis>(SteadyClock::now() - since).count()) +
           " ms";
  } else {
    why += std::to_string(settings.connect_timeout.count()) + " ms (connect_timeout)";
  }
  const auto current = keeper.current();
  if (current && current->auth_failed()) why += "; " + current->auth_error();
  return why;
}

}  // namespace

std::shared_ptr<Session> ZkContext::ready_session(std::string_view lock) const {
  const auto since = SteadyClock::now();
  if (auto session = keeper.ready(since + settings.connect_timeout)) return session;
  throw status::unavailable(lock, settings.server, not_connected(keeper, since, false, settings));
}

std::shared_ptr<Session> ZkContext::ready_session(std::string_view lock, RideThrough& outage,
                                                  SteadyClock::time_point deadline) const {
  const auto since = SteadyClock::now();
  auto session = keeper.ready(since + settings.connect_timeout);
  bool rode_through = false;
  while (!session) {
    // A failed authentication is final: waiting longer would not change the answer.
    const auto current = keeper.current();
    const bool refused = current && current->auth_failed();
    const std::string failure =
        status::unavailable(lock, settings.server,
                            not_connected(keeper, since, rode_through, settings))
            .what();
    const auto next = refused ? std::nullopt : outage.next_try(deadline, failure);
    if (!next) {
      throw status::unavailable(lock, settings.server,
                                not_connected(keeper, since, rode_through, settings));
    }
    rode_through = true;
    session = keeper.ready(*next);
  }
  outage.succeeded();
  return session;
}

}  // namespace distlock::detail::zookeeper
