// SPDX-License-Identifier: Apache-2.0
// Rides an acquisition through a spell in which the server cannot be reached or cannot serve
// yet (a restart, a Sentinel or Cluster failover, a server loading its data): the failed
// attempt is made again after a pause that doubles from 50 ms to 1 s, while both the caller's
// wait and the outage limit (the URL's outage_limit, 10 s by default) leave time; only then is
// the failure the caller's. A refusal (a script error, a failed authentication) is never ridden
// through: asking again would get the same answer.
#pragma once

#include <optional>
#include <string_view>

#include <distlock/duration.h>

#include "backends/redis/transport/server_error.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

class Outage {
 public:
  // `limit` zero: no attempt is made again.
  explicit Outage(Millis limit) : limit_(limit) {}

  // After a failed attempt (`failure`, naming the lock and the server): false when neither the
  // caller's `deadline` nor the limit leaves time for another; else pauses until the next
  // attempt and returns true. The spell counts from its first failure, which is logged once.
  bool pause_before_retry(SteadyClock::time_point deadline, std::string_view failure);
  // An attempt got through: the next failure begins a new spell.
  void over() { began_.reset(); }

  // Runs `operation` until it gets through, again after each failure while the spell and
  // `deadline` let. A redirect or TRYAGAIN (a Cluster's answers) goes to the caller as it came;
  // another failure, told of the lock: Refused for a refusal, BackendUnavailable otherwise.
  template <class Operation>
  auto ride_through(std::string_view lock, SteadyClock::time_point deadline,
                    Operation&& operation) {
    for (;;) {
      try {
        auto result = operation();
        over();
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

 private:
  const Millis limit_;
  std::optional<SteadyClock::time_point> began_;
  Millis pause_{0};
};

}  // namespace distlock::detail::redis
