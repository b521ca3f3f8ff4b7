// SPDX-License-Identifier: Apache-2.0
// How the Redis backends wait for a busy lock, one server or a Redlock quorum alike, by the
// protocol of release_listener.h: subscribed before the retry that could miss a release,
// each wait bounded by the holder's ttl, so that a lost notification costs time, never a
// grant.
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>

#include "backends/backend.h"
#include "backends/redis/topology/redis_backend.h"
#include "core/stats.h"

namespace distlock::detail::redis {

// What a waiter does while its subscription is down.
enum class Unheard {
  // Waits for it to come back, each wait bounded by the holder's ttl: there is one server,
  // and retrying a server that is likely down would only turn a wait into an error.
  wait,
  // Retries every kUnheardRetry and watches again, so that `watch()` may pick another
  // server (a Redlock master that answers): otherwise a holder that takes the lock again at
  // once can keep such a waiter out for its whole wait.
  watch_elsewhere,
};

inline constexpr std::chrono::milliseconds kUnheardRetry{100};

// What a release's message that grants the lock to a waiter (a fair lock's) is to it.
enum class GrantMessage {
  // The grant itself, when it names the waiter's latest attempt (attempt_token): the server
  // answered that attempt before the grant, so the waiter holds the lock counted from that
  // attempt's sending. A grant after an earlier attempt is left to the next attempt, which
  // finds it or finds it gone.
  taken,
  // A reason to ask: the attempt finds the grant and confirms it (waits for replicas, or is
  // one master of a quorum).
  asked_for,
};

// `first` is the attempt that found the lock busy; `watch()` returns the release
// listener's ticket for the lock; `try_once()` returns an Attempt.
template <class Watch, class TryOnce>
std::optional<Grant> wait_for_grant(const AcquireRequest& request, StatsCounters& stats,
                                    const Attempt& first, Unheard unheard,
                                    GrantMessage grant_message, Watch&& watch, TryOnce&& try_once) {
  using Woken = ReleaseListener::Ticket::Woken;
  ++stats.contended;
  const bool elsewhere = unheard == Unheard::watch_elsewhere;
  long long holder_pttl = first.holder_pttl;
  const auto until_holder_gone = [&] {
    return std::min(holder_gone(holder_pttl, request.ttl), request.deadline);
  };
  const auto until_retry = [&] {
    const auto until = until_holder_gone();
    return elsewhere ? std::min(until, SteadyClock::now() + kUnheardRetry) : until;
  };
  for (;;) {
    auto ticket = watch();
    // Only a retry made after the server confirmed the subscription is sure to hear of every
    // later release.
    ticket.wait_subscribed(until_retry());
    for (;;) {
      const bool heard = ticket.subscribed();
      const auto seen = ticket.generation();
      Attempt attempt = try_once();
      if (attempt.grant) {
        attempt.grant->contended = true;
        return attempt.grant;
      }
      if (SteadyClock::now() >= request.deadline) return std::nullopt;
      holder_pttl = attempt.holder_pttl;
      Woken woken = Woken::by_timeout;
      if (heard) {
        // Counted only here: subscribed, and the lock seen held since, so the next release
        // is sure to arrive as a notification.
        WaitingScope waiting(stats);
        woken = ticket.wait_for_release(seen, until_holder_gone(), elsewhere);
      } else {
        woken = ticket.wait_for_release(seen, until_retry());
      }
      ++(woken == Woken::by_release ? stats.woken_by_release : stats.woken_by_timeout);
      if (woken == Woken::by_release && grant_message == GrantMessage::taken)
        if (const auto granted = ticket.granted();
            granted && granted->attempt == attempt_token(attempt.sent_at))
          return Grant{granted->fence, attempt.sent_at, true};
      if (elsewhere && !ticket.subscribed()) break;
    }
  }
}

}  // namespace distlock::detail::redis
