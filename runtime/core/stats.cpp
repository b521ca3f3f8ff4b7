// SPDX-License-Identifier: Apache-2.0
#include "core/stats.h"

namespace distlock::detail {

ClientStats StatsCounters::snapshot() const {
  ClientStats stats;
  stats.acquired = acquired.load();
  stats.contended = contended.load();
  stats.woken_by_release = woken_by_release.load();
  stats.woken_by_timeout = woken_by_timeout.load();
  stats.timeouts = timeouts.load();
  stats.renewals = renewals.load();
  stats.renewal_failures = renewal_failures.load();
  stats.lost = lost.load();
  stats.release_failures = release_failures.load();
  stats.notifications = notifications.load();
  stats.round_trips = round_trips.load();
  stats.waiting = waiting.load();
  return stats;
}

}  // namespace distlock::detail
