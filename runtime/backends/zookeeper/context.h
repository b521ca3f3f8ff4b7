// SPDX-License-Identifier: Apache-2.0
// What the parts of the ZooKeeper backend share.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "backends/zookeeper/acls.h"
#include "backends/zookeeper/reaper.h"
#include "backends/zookeeper/requests.h"
#include "backends/zookeeper/session_keeper.h"
#include "backends/zookeeper/settings.h"
#include "core/ride_through.h"
#include "core/stats.h"
#include "core/step_deadline.h"
#include "util/steady_clock.h"

namespace distlock::detail::zookeeper {

struct ZkContext {
  const ZooKeeperSettings& settings;
  StatsCounters& stats;
  const Requests& requests;
  const Acls& acls;
  SessionKeeper& keeper;
  Reaper& reaper;

  // What a contender or lease node of `acquisition_id` carries as data, for people and the
  // distlock command: "<host> <pid> <acquisition id>". Curator ignores node data.
  std::string node_data(std::string_view acquisition_id) const;

  // A ready session, waiting up to connect_timeout; BackendUnavailable naming `lock` if none.
  std::shared_ptr<Session> ready_session(std::string_view lock) const;
  // The same, the wait ending by an acquisition's `deadline` when that comes first
  // (core/step_deadline.h).
  std::shared_ptr<Session> ready_session(std::string_view lock,
                                         const AcquisitionDeadline& deadline) const;
  // The same for an acquisition with `deadline`, whose first wait ends by the deadline when
  // that comes first (core/step_deadline.h), and which goes on waiting while `outage` lets
  // (core/ride_through.h): the client reconnects meanwhile, a restart or a leader's election
  // is ridden through.
  std::shared_ptr<Session> ready_session(std::string_view lock, RideThrough& outage,
                                         const AcquisitionDeadline& deadline) const;
  // The same after a request that found the connection in trouble; but a wait whose deadline
  // has passed ends there (BackendUnavailable) rather than wait for the connection again.
  std::shared_ptr<Session> ready_session_after_trouble(std::string_view lock, RideThrough& outage,
                                                       const AcquisitionDeadline& deadline) const;
  // An acquisition's session: through `outage` when it rides outages through (a blocking
  // acquisition), else within connect_timeout or the deadline, whichever comes first (the
  // asynchronous steps, which ride outages through on timers rather than hold the executor's
  // thread, and a semaphore's mutex, whose semaphore rides them through).
  enum class Trouble { none, met };
  std::shared_ptr<Session> session_for(std::string_view lock, RideThrough* outage,
                                       const AcquisitionDeadline& deadline, Trouble trouble) const;
};

}  // namespace distlock::detail::zookeeper
