// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/topology/redlock_backend.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include <distlock/error.h>

#include "backends/redis/locks/async_waiter.h"
#include "backends/redis/locks/waiting.h"
#include "backends/redis/topology/master_worker.h"
#include "backends/redis/topology/redis_backend.h"
#include "backends/redis/transport/connection_settings.h"
#include "backends/url_schemes.h"
#include "core/validity.h"

namespace distlock::detail::redis {
namespace {

// A master that could not be reached is not asked to connect again sooner than this.
constexpr Millis kReconnectPause{1000};

std::string describe_failures(const std::vector<std::string>& failures) {
  std::string text;
  for (const auto& failure : failures) text += (text.empty() ? "" : "; ") + failure;
  return text;
}

// One master: connected at the start, or later, when first needed after it came up.
class Master {
 public:
  Master(Url url, const Options& options, StatsCounters& stats)
      : url_(std::move(url)), server_(url_.redacted()), options_(options), stats_(stats) {}

  const std::string& server() const { return server_; }
  // Throws BackendUnavailable (the connection error, or the last one while pausing).
  RedisBackend& backend();
  bool connected() const { return connected_.load(std::memory_order_acquire) != nullptr; }
  // Whether the master answered the last round that asked it.
  bool answering() const { return answering_.load(std::memory_order_acquire); }
  void answered(bool answered) { answering_.store(answered, std::memory_order_release); }
  // The master's own thread, for the renewals of a round (renew()).
  MasterWorker& worker() { return worker_; }

 private:
  const Url url_;
  const std::string server_;
  const Options options_;
  StatsCounters& stats_;
  std::mutex mutex_;
  std::unique_ptr<RedisBackend> backend_;
  std::atomic<RedisBackend*> connected_{nullptr};
  std::atomic<bool> answering_{true};
  SteadyClock::time_point next_attempt_{};
  std::string last_error_;
  // Last, so that it goes first: its jobs use the backend.
  MasterWorker worker_;
};

// One renewal round over the masters, shared with the jobs it posts to their workers: a job of
// a master that does not answer may run on after the round has gone on without it.
struct RenewRound {
  RenewRound(std::span<const RenewItem> asked, std::size_t masters) : answered(masters, false) {
    texts.reserve(asked.size());
    for (const auto& item : asked)
      texts.push_back({std::string(item.hold.name), std::string(item.hold.owner),
                       std::string(item.hold.acquisition_id)});
    items.assign(asked.begin(), asked.end());
    for (std::size_t i = 0; i < items.size(); ++i) {
      items[i].hold.name = texts[i].name;
      items[i].hold.owner = texts[i].owner;
      items[i].hold.acquisition_id = texts[i].acquisition_id;
      items[i].outcome = RenewItem::Outcome::failed;
      items[i].error.clear();
    }
    by_master.assign(masters, items);
  }

  // The holds' texts, owned: the leases that named them may be gone before a late job is.
  struct Texts {
    std::string name;
    std::string owner;
    std::string acquisition_id;
  };
  std::vector<Texts> texts;
  std::vector<RenewItem> items;  // pointing into texts; read only
  std::mutex mutex;
  std::condition_variable heard;
  std::vector<std::vector<RenewItem>> by_master;  // each master's outcomes, once answered
  std::vector<bool> answered;
  bool over = false;  // the round went on: a job that has not started yet asks nothing
};

// A round waits for its masters at least this long, even past its deadline (as a master's own
// renewal does, redis_backend.cpp): a lease renewed late is still renewed.
constexpr Millis kShortestRoundWait{10};

RedisBackend& Master::backend() {
  if (RedisBackend* ready = connected_.load(std::memory_order_acquire)) return *ready;
  {
    std::lock_guard lock(mutex_);
    if (backend_) return *backend_;
    if (SteadyClock::now() < next_attempt_) throw BackendUnavailable("", server_, last_error_);
  }
  // Connected without the lock: what connecting logs (through the user's logger) runs under no
  // lock of ours. Two callers may both connect; the second backend made is dropped, after the
  // lock is released.
  std::unique_ptr<RedisBackend> made;
  try {
    ConnectionSettings settings = connection_settings(url_, options_);
    // A master that is down is one of several: a quorum decides without it, and a release
    // or a renewal must not wait for it to come back.
    settings.outage_limit = Millis::zero();
    made = std::make_unique<RedisBackend>(std::move(settings), stats_);
  } catch (const BackendUnavailable& error) {
    std::lock_guard lock(mutex_);
    next_attempt_ = SteadyClock::now() + kReconnectPause;
    last_error_ = error.reason();
    throw;
  }
  std::lock_guard lock(mutex_);
  if (!backend_) {
    backend_ = std::move(made);
    connected_.store(backend_.get(), std::memory_order_release);
  }
  return *backend_;
}

class RedlockBackend final : public Backend {
 public:
  RedlockBackend(std::string server, std::vector<std::unique_ptr<Master>> masters,
                 StatsCounters& stats)
      : server_(std::move(server)), masters_(std::move(masters)), stats_(stats) {}

  std::optional<Grant> acquire(const AcquireRequest& request) override;
  // Waits as acquire() does, each round and each wait a step on `executor` (async_waiter.h).
  std::shared_ptr<PendingAcquisition> acquire_async(const AcquireRequest& request,
                                                    AsyncExecutor& executor,
                                                    AcquireCompletion done) override;
  ReleaseOutcome release(const ReleaseRequest& request) override;
  bool supports_keeping() const override { return true; }
  void renew(std::span<RenewItem> items, SteadyClock::time_point deadline) override;
  const std::string& server() const override { return server_; }

 private:
  // How a waiter waits between rounds, on a thread or not: unheard, it listens again through
  // a master that answers (herald()); a release only sends it to ask, as only a round over
  // the masters can grant.
  static constexpr Unheard kUnheard = Unheard::watch_elsewhere;
  static constexpr GrantMessage kGrantMessage = GrantMessage::asked_for;

  std::size_t majority() const { return masters_.size() / 2 + 1; }
  // One round over every master: a grant when a majority gave one in time (else every hold
  // taken in the round is released again), or the longest PTTL a busy master reported: by
  // then the lock is free by itself.
  Attempt try_once(const AcquireRequest& request);
  void release_everywhere(const HoldId& hold);
  // Whose release notifications a waiter listens to: the first master connected that
  // answered its last round (a release reaches every master that answers; a dead master's
  // subscription would leave waiters to the holder's ttl, and a holder that takes the lock
  // again at once could keep them out until their wait ends).
  RedisBackend& herald();

  const std::string server_;
  std::vector<std::unique_ptr<Master>> masters_;
  StatsCounters& stats_;
  // A round undoes what it took unless it won, so a waiter keeps nothing between rounds: there
  // is nothing to withdraw when it gives up.
  const AsyncWaitSteps async_steps_{
      AsyncWaitSteps::waiting_for_reply(
          [this](const AcquireRequest& asked) { return try_once(asked); }),
      [this](const HoldId& hold, std::function<void()> on_change) {
        return herald().watch_releases_async(hold, std::move(on_change));
      },
      nullptr};
};

RedisBackend& RedlockBackend::herald() {
  for (const auto& master : masters_)
    if (master->connected() && master->answering()) return master->backend();
  for (const auto& master : masters_)
    if (master->connected()) return master->backend();
  return masters_.front()->backend();
}

std::optional<Grant> RedlockBackend::acquire(const AcquireRequest& request) {
  const Attempt round = try_once(request);
  if (round.grant || SteadyClock::now() >= request.deadline) return round.grant;
  return wait_for_grant(
      request, stats_, round, kUnheard, kGrantMessage,
      [&] { return herald().watch_releases(request.hold); }, [&] { return try_once(request); });
}

std::shared_ptr<PendingAcquisition> RedlockBackend::acquire_async(const AcquireRequest& request,
                                                                  AsyncExecutor& executor,
                                                                  AcquireCompletion done) {
  // Each master is asked once per round: no outage is ridden through (Millis::zero()).
  auto waiter = std::make_shared<AsyncWaiter>(request, kUnheard, kGrantMessage, async_steps_,
                                              stats_, executor, Millis::zero(), std::move(done));
  waiter->start();
  return waiter;
}

Attempt RedlockBackend::try_once(const AcquireRequest& request) {
  const auto sent_at = SteadyClock::now();
  std::size_t granted = 0;
  std::size_t answered = 0;
  Attempt round;
  round.holder_pttl = -2;  // no master busy
  round.sent_at = sent_at;
  std::uint64_t fence = 0;
  std::vector<std::string> failures;
  for (const auto& master : masters_) {
    try {
      const Attempt attempt = master->backend().try_acquire(request);
      master->answered(true);
      if (attempt.grant) {
        ++granted;
        fence = std::max(fence, attempt.grant->fence);
      } else {
        round.holder_pttl = std::max(round.holder_pttl, attempt.holder_pttl);
      }
      ++answered;
    } catch (const BackendUnavailable& error) {
      master->answered(false);
      failures.push_back(master->server() + ": " + error.reason());
    }
  }
  // The validity counts from before the first master was asked: what the round took is
  // spent, and the drift allowance is kept back.
  if (granted >= majority() && SteadyClock::now() < valid_until(sent_at, request.ttl)) {
    round.grant = Grant{fence, sent_at};
    return round;
  }
  release_everywhere(request.hold);
  if (answered < majority())
    throw BackendUnavailable(std::string(request.hold.name), server_,
                             "only " + std::to_string(answered) + " of " +
                                 std::to_string(masters_.size()) +
                                 " masters answered, a majority is " + std::to_string(majority()) +
                                 " (" + describe_failures(failures) + ")");
  return round;
}

void RedlockBackend::release_everywhere(const HoldId& hold) {
  for (const auto& master : masters_) {
    try {
      (void)master->backend().release({hold});
    } catch (const BackendUnavailable&) {
      // That master's hold, if any, ends with its ttl.
    }
  }
}

ReleaseOutcome RedlockBackend::release(const ReleaseRequest& request) {
  const HoldId& hold = request.hold;
  const bool valid_when_sent = SteadyClock::now() < request.valid_until;
  std::size_t released = 0;
  std::size_t answered = 0;
  // Masters that no longer had the hold when they answered after the lease's validity: while
  // another master kept the release waiting, their hold may have run out by its ttl.
  std::size_t gone_by_then = 0;
  std::vector<std::string> failures;
  // Last master first: a waiter listens to the first master that answers (herald()), and a
  // release heard there before the masters after it had it would send the waiter to find the
  // lock still held by a majority, and to sleep out the holder's ttl.
  for (auto master_it = masters_.rbegin(); master_it != masters_.rend(); ++master_it) {
    const auto& master = *master_it;
    try {
      if (master->backend().release(request) == ReleaseOutcome::released)
        ++released;
      else if (SteadyClock::now() >= request.valid_until)
        ++gone_by_then;
      ++answered;
    } catch (const BackendUnavailable& error) {
      failures.push_back(master->server() + ": " + error.reason());
    }
  }
  if (released >= majority()) return ReleaseOutcome::released;
  // Gone from a majority, the lease valid when its release went out: nobody else held the lock
  // while this lease did.
  if (released + gone_by_then >= majority() && valid_when_sent) return ReleaseOutcome::released;
  if (answered - released >= majority()) return ReleaseOutcome::not_held;
  throw BackendUnavailable(std::string(hold.name), server_,
                           "the release reached " + std::to_string(released) + " of " +
                               std::to_string(masters_.size()) + " masters (" +
                               describe_failures(failures) + ")");
}

void RedlockBackend::renew(std::span<RenewItem> items, SteadyClock::time_point deadline) {
  // Every master renews at once, on its own thread, within the deadline; the round goes on as
  // soon as a majority has renewed every item, or every master has answered.
  const auto round = std::make_shared<RenewRound>(items, masters_.size());
  for (std::size_t m = 0; m < masters_.size(); ++m) {
    Master& master = *masters_[m];
    auto job = [round, &master, m, deadline] {
      std::vector<RenewItem> copy = round->items;
      const auto fail_all = [&](const std::string& reason) {
        for (auto& item : copy) item.error = reason;
      };
      bool over = false;
      {
        std::lock_guard lock(round->mutex);
        over = round->over;
      }
      if (over) return;
      // On the worker's thread: nothing may leave it.
      try {
        master.backend().renew(copy, deadline);
      } catch (const Error& error) {
        fail_all(error.reason());
      } catch (const std::exception& error) {
        fail_all(error.what());
      }
      {
        std::lock_guard lock(round->mutex);
        round->by_master[m] = std::move(copy);
        round->answered[m] = true;
      }
      round->heard.notify_all();
    };
    try {
      master.worker().post(job);
    } catch (const std::system_error&) {
      job();  // no thread for it: in turn, then
    }
  }
  const auto renewed_by_majority = [&] {
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::size_t renewed = 0;
      for (std::size_t m = 0; m < masters_.size(); ++m)
        if (round->answered[m] && round->by_master[m][i].outcome == RenewItem::Outcome::renewed)
          ++renewed;
      if (renewed < majority()) return false;
    }
    return true;
  };
  std::unique_lock lock(round->mutex);
  round->heard.wait_until(lock, std::max(deadline, SteadyClock::now() + kShortestRoundWait), [&] {
    return renewed_by_majority() ||
           std::all_of(round->answered.begin(), round->answered.end(), [](bool a) { return a; });
  });

  std::vector<std::size_t> renewed(items.size(), 0);
  std::vector<std::size_t> lost(items.size(), 0);
  std::vector<std::string> errors(items.size());
  for (std::size_t m = 0; m < masters_.size(); ++m) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      const RenewItem& outcome = round->by_master[m][i];
      const std::string error = round->answered[m] ? outcome.error : "no answer in time";
      switch (round->answered[m] ? outcome.outcome : RenewItem::Outcome::failed) {
        case RenewItem::Outcome::renewed:
          ++renewed[i];
          break;
        case RenewItem::Outcome::lost:
          ++lost[i];
          break;
        case RenewItem::Outcome::failed:
          errors[i] += (errors[i].empty() ? "" : "; ") + masters_[m]->server() + ": " + error;
          break;
      }
    }
  }
  round->over = true;
  lock.unlock();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (renewed[i] >= majority()) {
      items[i].outcome = RenewItem::Outcome::renewed;
      items[i].error.clear();
    } else if (masters_.size() - lost[i] < majority()) {
      // Too many masters no longer have it for a majority ever to hold it again.
      items[i].outcome = RenewItem::Outcome::lost;
    } else {
      items[i].outcome = RenewItem::Outcome::failed;
      items[i].error = "renewed on " + std::to_string(renewed[i]) + " of " +
                       std::to_string(masters_.size()) + " masters, a majority is " +
                       std::to_string(majority()) +
                       (errors[i].empty() ? std::string() : " (" + errors[i] + ")");
    }
  }
}

}  // namespace

std::unique_ptr<Backend> make_redlock_backend(const Url& url, const Options& options,
                                              StatsCounters& stats) {
  std::vector<std::unique_ptr<Master>> masters;
  std::vector<std::string> failures;
  std::size_t reached = 0;
  for (const auto& endpoint : url.endpoints) {
    Url one = url;
    // Each master as a server of its own, over TLS when the URL is rediss+redlock://.
    one.scheme = uses_tls(url) ? "rediss" : "redis";
    one.endpoints = {endpoint};
    auto& master = masters.emplace_back(std::make_unique<Master>(one, options, stats));
    try {
      (void)master->backend();
      ++reached;
    } catch (const BackendUnavailable& error) {
      failures.push_back(master->server() + ": " + error.reason());
    }
  }
  if (reached < url.endpoints.size() / 2 + 1)
    throw BackendUnavailable("", url.redacted(),
                             "only " + std::to_string(reached) + " of " +
                                 std::to_string(url.endpoints.size()) +
                                 " masters could be reached (" + describe_failures(failures) + ")");
  return std::make_unique<RedlockBackend>(url.redacted(), std::move(masters), stats);
}

}  // namespace distlock::detail::redis
