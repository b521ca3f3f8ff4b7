// SPDX-License-Identifier: Apache-2.0
// Redis's side of riding through an outage (core/ride_through.h, the policy every backend
// shares): which of its failures are transient. A refusal (a script error, a failed
// authentication) is final; a Cluster's redirect or TRYAGAIN is its caller's to follow.
#pragma once

#include <string_view>

#include "backends/redis/transport/server_error.h"
#include "core/ride_through.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

class Outage : public RideThrough {
 public:
  using RideThrough::RideThrough;

  // Runs `operation` until it gets through, again after each transient failure while the
  // policy lets. A redirect or TRYAGAIN (a Cluster's answers) goes to the caller as it came;
  // another failure, told of the lock: Refused for a refusal, BackendUnavailable otherwise.
  template <class Operation>
  auto ride_through(std::string_view lock, SteadyClock::time_point deadline,
                    Operation&& operation) {
    for (;;) {
      try {
        auto result = operation();
        succeeded();
        return result;
      } catch (const Redirected&) {
        throw;
      } catch (const TryAgain&) {
        throw;
      } catch (const ServerError& error) {
        if (error.refused() || !pause_before_retry(deadline, error.for_lock(lock).what()))
          error.throw_for_lock(lock);
      }
    }
  }
};

}  // namespace distlock::detail::redis
