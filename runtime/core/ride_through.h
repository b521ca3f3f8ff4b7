// SPDX-License-Identifier: Apache-2.0
// The one policy by which every backend rides an operation through an outage (a restart, a
// failover, a server loading its data or not yet acknowledging): after a failure its backend
// calls transient, the operation is tried again after a pause that doubles from 50 ms to 1 s,
// each drawn from its upper half so that clients cut off together do not come back in step, for
// as long as the caller's deadline lasts. An operation without a deadline of its own (a wait
// forever, a release) keeps trying until the outage, counted from its first failure since an
// attempt last got through, reaches the URL's outage_limit. outage_limit zero turns riding through
// off; a try (a deadline already reached at the first failure) is never made again. Which failures
// are transient is each backend's to say, in one place; a final one (a refusal, a failed
// authentication) goes to the caller at once, as asking again would get the same answer.
#pragma once

#include <optional>
#include <string_view>

#include <distlock/duration.h>
#include <distlock/error.h>

#include "util/steady_clock.h"

namespace distlock::detail {

// A backend's BackendUnavailable for a failure it calls transient: a waiter with time left may
// try again. Callers see a BackendUnavailable.
class TransientUnavailable : public BackendUnavailable {
 public:
  using BackendUnavailable::BackendUnavailable;
  explicit TransientUnavailable(const BackendUnavailable& failure) : BackendUnavailable(failure) {}
};

class RideThrough {
 public:
  // `outage_limit` bounds operations without a deadline; zero: no operation is tried again.
  explicit RideThrough(Millis outage_limit);

  // When riding through ends for an operation with `deadline`: the deadline itself, or for
  // one without (time_point::max()), the outage limit after the spell's first failure (after
  // now, when no spell is under way).
  SteadyClock::time_point ends_at(SteadyClock::time_point deadline) const;

  // After a transient failure (`failure`, naming the lock and the server): when to try next,
  // or none when the time is up. The first failure of a spell is logged, once.
  std::optional<SteadyClock::time_point> next_try(SteadyClock::time_point deadline,
                                                  std::string_view failure);
  // next_try, slept until: false when the time is up.
  bool pause_before_retry(SteadyClock::time_point deadline, std::string_view failure);
  // An attempt got through: the next failure begins a new spell.
  void succeeded() { spell_began_.reset(); }

 private:
  const Millis limit_;
  std::optional<SteadyClock::time_point> spell_began_;
  Millis pause_{0};
};

}  // namespace distlock::detail
