// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/context.h"

#include <chrono>
#include <optional>

#include "backends/zookeeper/status.h"
#include "core/step_deadline.h"
#include "util/process_label.h"

namespace distlock::detail::zookeeper {

std::string ZkContext::node_data(std::string_view acquisition_id) const {
  std::string data = process_label();
  data += ' ';
  data += acquisition_id;
  return data;
}

namespace {

// Why no session is ready, after waiting since `since` (`own_timeout`: connect_timeout, which
// ended the wait).
std::string not_connected(const SessionKeeper& keeper, SteadyClock::time_point since,
                          bool own_timeout, const ZooKeeperSettings& settings) {
  std::string why = "not connected to ZooKeeper within ";
  if (!own_timeout) {
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
  throw status::unavailable(lock, settings.server, not_connected(keeper, since, true, settings));
}

std::shared_ptr<Session> ZkContext::ready_session(std::string_view lock,
                                                  const AcquisitionDeadline& deadline) const {
  const auto since = SteadyClock::now();
  const auto caller = deadline.for_steps();
  const auto until = step_deadline(caller, settings.connect_timeout);
  if (auto session = keeper.ready(until)) return session;
  throw status::unavailable(
      lock, settings.server,
      not_connected(keeper, since, !cut_by_caller(until, caller, settings.connect_timeout),
                    settings));
}

std::shared_ptr<Session> ZkContext::ready_session(std::string_view lock, RideThrough& outage,
                                                  const AcquisitionDeadline& deadline) const {
  const auto since = SteadyClock::now();
  const auto caller = deadline.for_steps();
  const auto first_until = step_deadline(caller, settings.connect_timeout);
  auto session = keeper.ready(first_until);
  // Whether connect_timeout alone ended the wait so far.
  bool own_timeout = !cut_by_caller(first_until, caller, settings.connect_timeout);
  while (!session) {
    // A failed authentication is final: waiting longer would not change the answer.
    const auto current = keeper.current();
    const bool refused = current && current->auth_failed();
    const std::string failure =
        status::unavailable(lock, settings.server,
                            not_connected(keeper, since, own_timeout, settings))
            .what();
    const auto next = refused ? std::nullopt : outage.next_try(deadline.end(), failure);
    if (!next) {
      throw status::unavailable(lock, settings.server,
                                not_connected(keeper, since, own_timeout, settings));
    }
    own_timeout = false;
    session = keeper.ready(*next);
  }
  outage.succeeded();
  return session;
}

std::shared_ptr<Session> ZkContext::ready_session_after_trouble(
    std::string_view lock, RideThrough& outage, const AcquisitionDeadline& deadline) const {
  if (deadline.wait_over())
    throw status::unavailable(lock, settings.server,
                              "no answer from ZooKeeper before the wait ended");
  return ready_session(lock, outage, deadline);
}

std::shared_ptr<Session> ZkContext::session_for(std::string_view lock, RideThrough* outage,
                                                const AcquisitionDeadline& deadline,
                                                Trouble trouble) const {
  if (!outage) return ready_session(lock, deadline);
  if (trouble == Trouble::met) return ready_session_after_trouble(lock, *outage, deadline);
  return ready_session(lock, *outage, deadline);
}

}  // namespace distlock::detail::zookeeper
