// How the Redis backends wait for a busy lock, one server or a Redlock quorum alike, by the
// protocol of release_listener.h: subscribed before the retry that could miss a release,
// each wait bounded by the holder's ttl, so that a lost notification costs time, never a
// grant.
#pragma once

#include <algorithm>
#include <optional>

#include "backends/backend.h"
#include "backends/redis/redis_backend.h"
#include "core/stats.h"

namespace distlock::detail::redis {

// `first` is the attempt that found the lock busy; `watch()` returns the release
// listener's ticket for the lock; `try_once()` returns an Attempt.
template <class Watch, class TryOnce>
std::optional<Grant> wait_for_grant(const AcquireRequest& request, StatsCounters& stats,
                                    const Attempt& first, Watch&& watch, TryOnce&& try_once) {
  ++stats.contended;
  auto ticket = watch();
  // Only a retry made after the server confirmed the subscription is sure to hear of every
  // later release. Should the subscriber be down, the holder's ttl bounds the wait.
  ticket.wait_subscribed(std::min(holder_gone(first.holder_pttl, request.ttl), request.deadline));
  for (;;) {
    const auto seen = ticket.generation();
    Attempt attempt = try_once();
    if (attempt.grant) {
      attempt.grant->contended = true;
      return attempt.grant;
    }
    if (SteadyClock::now() >= request.deadline) return std::nullopt;
    const auto until = std::min(holder_gone(attempt.holder_pttl, request.ttl), request.deadline);
    // Counted only here: subscribed, and the lock seen held since, so the next release is
    // sure to arrive as a notification.
    WaitingScope waiting(stats);
    if (ticket.wait_for_release(seen, until))
      ++stats.woken_by_release;
    else
      ++stats.woken_by_timeout;
  }
}

}  // namespace distlock::detail::redis
