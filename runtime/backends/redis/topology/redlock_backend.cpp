// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/topology/redlock_backend.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include <distlock/error.h>

#include "backends/redis/topology/async_waiter.h"
#include "backends/redis/topology/granting_masters.h"
#include "backends/redis/topology/master_round.h"
#include "backends/redis/topology/master_worker.h"
#include "backends/redis/topology/redis_backend.h"
#include "backends/redis/topology/waiting.h"
#include "backends/redis/transport/connection_settings.h"
#include "backends/url_schemes.h"
#include "core/ride_through.h"
#include "core/step_deadline.h"
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

// How long a waiter sleeps after a losing round (the PTTL convention of holder_gone()): until
// a majority of masters is free, not until the last one is. A release reaches the masters one
// after another, so a waiter woken by it (a kept release's '*') can find a master that has not
// yet heard it, holding for the holder's whole ttl. `pttls`: each master's, -2 when free (or
// granted in this round, which gives it back), -1 when not known.
long long until_a_majority_is_free(std::vector<long long> pttls, std::size_t majority) {
  const auto time_to_free = [](long long pttl) {
    if (pttl == -2) return 0LL;
    return pttl < 0 ? std::numeric_limits<long long>::max() : pttl;
  };
  std::sort(pttls.begin(), pttls.end(),
            [&](long long a, long long b) { return time_to_free(a) < time_to_free(b); });
  return pttls[majority - 1];
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
                 const Options& options, StatsCounters& stats)
      : server_(std::move(server)),
        masters_(std::move(masters)),
        command_timeout_(options.command_timeout),
        outage_limit_(options.outage_limit),
        stats_(stats) {
    for (const auto& master : masters_) {
      asked_.push_back(master.get());
      workers_.push_back(&master->worker());
    }
  }

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
  // One round, every master asked at once: a grant when a majority gave one in time (else
  // every hold taken in the round is released again), or the longest PTTL a busy master
  // reported: by then the lock is free by itself. Fewer than a majority answering is a
  // TransientUnavailable (the caller rides it through), unless a master refused the request.
  Attempt try_once(const AcquireRequest& request);
  // try_once, again after each transient failure as core/ride_through.h says.
  Attempt try_through_outage(const AcquireRequest& request, RideThrough& outage);
  // Sends the hold's release to each master that granted it in a round that lost, also where
  // the grant comes after the round's end: a master's release is sent after its question, if
  // that granted. Not awaited: a master's hold that it misses ends with its ttl. A question
  // whose reply was lost holds as on one server, until the ttl or the owner's next grant.
  void give_back(const HoldId& hold, MasterRound<Attempt>& round);
  // Notes which masters granted the hold in a round that won (granting_), and has those whose
  // answers come later add theirs.
  void record_grants(const HoldId& hold, const std::vector<MasterAnswer<Attempt>>& answers,
                     MasterRound<Attempt>& round);
  // Whose release notifications a waiter listens to: the first master connected that
  // answered its last round (a release reaches every master that answers; a dead master's
  // subscription would leave waiters to the holder's ttl, and a holder that takes the lock
  // again at once could keep them out until their wait ends).
  RedisBackend& herald();
  std::size_t herald_index() const;

  const std::string server_;
  std::vector<std::unique_ptr<Master>> masters_;
  // masters_ as a question on a worker reads them: a master outlives its worker's questions.
  std::vector<Master*> asked_;
  std::vector<MasterWorker*> workers_;  // masters_[i]'s at i
  const Millis command_timeout_;
  const Millis outage_limit_;
  StatsCounters& stats_;
  // Shared with the questions still under way when a round was won, which add their grants.
  const std::shared_ptr<GrantingMasters> granting_ = std::make_shared<GrantingMasters>();
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

std::size_t RedlockBackend::herald_index() const {
  for (std::size_t m = 0; m < masters_.size(); ++m)
    if (masters_[m]->connected() && masters_[m]->answering()) return m;
  for (std::size_t m = 0; m < masters_.size(); ++m)
    if (masters_[m]->connected()) return m;
  return 0;
}

RedisBackend& RedlockBackend::herald() { return masters_[herald_index()]->backend(); }

std::optional<Grant> RedlockBackend::acquire(const AcquireRequest& request) {
  RideThrough outage(outage_limit_);
  const Attempt round = try_through_outage(request, outage);
  if (round.grant || SteadyClock::now() >= request.deadline) return round.grant;
  return wait_for_grant(
      request, stats_, round, kUnheard, kGrantMessage,
      [&] { return herald().watch_releases(request.hold); },
      [&] { return try_through_outage(request, outage); });
}

Attempt RedlockBackend::try_through_outage(const AcquireRequest& request, RideThrough& outage) {
  for (;;) {
    try {
      Attempt round = try_once(request);
      outage.succeeded();
      return round;
    } catch (const TransientUnavailable& failure) {
      if (!outage.pause_before_retry(request.deadline, failure.what())) throw;
    }
  }
}

std::shared_ptr<PendingAcquisition> RedlockBackend::acquire_async(const AcquireRequest& request,
                                                                  AsyncExecutor& executor,
                                                                  AcquireCompletion done) {
  auto waiter = std::make_shared<AsyncWaiter>(request, kUnheard, kGrantMessage, async_steps_,
                                              stats_, executor, outage_limit_, std::move(done));
  waiter->start();
  return waiter;
}

Attempt RedlockBackend::try_once(const AcquireRequest& request) {
  const auto sent_at = SteadyClock::now();
  // A grant that comes after the validity budget is spent is no grant: the round ends then,
  // or at the acquisition's deadline, by which each master's steps end (core/step_deadline.h)
  // unless they wait on their worker behind an earlier question (a release that went on after
  // its round).
  const auto caller = AcquisitionDeadline(request.deadline).for_steps();
  const auto round_end = caller == kNoCallerDeadline
                             ? valid_until(sent_at, request.ttl)
                             : std::min(valid_until(sent_at, request.ttl), caller);
  const auto hold = std::make_shared<const OwnedHold>(request.hold);
  const auto ask = [masters = asked_, hold, asked = request, caller](std::size_t m) {
    // Begun after the wait ended (its worker was busy with an earlier question), its steps
    // would take their own timeouts (core/step_deadline.h) for an answer nobody waits for.
    if (caller != kNoCallerDeadline && SteadyClock::now() >= caller)
      throw BackendUnavailable(std::string(hold->id().name), masters[m]->server(),
                               "not asked: the wait ended while an earlier request was under way");
    AcquireRequest own = asked;
    own.hold = hold->id();
    return masters[m]->backend().try_acquire(own, Asking::no, caller);
  };
  const std::size_t masters = masters_.size();
  // A round that wins goes on at once; one that cannot hears every master (each within its
  // steps' deadline), to tell a busy lock (the holder's PTTL) from an outage.
  const auto decided = [&](const std::vector<MasterAnswer<Attempt>>& answers) {
    return std::count_if(answers.begin(), answers.end(), [](const MasterAnswer<Attempt>& a) {
             return a.answer && a.answer->grant;
           }) >= static_cast<std::ptrdiff_t>(majority());
  };
  MasterRound<Attempt> asking(masters, LateQuestion::asked);
  for (std::size_t m = 0; m < masters; ++m)
    asking.ask(m, *workers_[m], [ask, m] { return ask(m); });
  const auto answers = asking.wait(round_end, decided);

  std::size_t answered = 0;
  bool refused = false;
  Attempt round;
  round.sent_at = sent_at;
  std::vector<long long> pttls(masters, -1);
  std::uint64_t fence = 0;
  std::vector<std::string> failures;
  const bool won = decided(answers);
  for (std::size_t m = 0; m < masters; ++m) {
    const MasterAnswer<Attempt>& answer = answers[m];
    // A master still asking when a round won early is not taken for one that does not answer
    // (herald() would send the waiters to listen elsewhere).
    if (answer.answered() || !won) masters_[m]->answered(answer.answer.has_value());
    if (answer.answer) {
      ++answered;
      if (answer.answer->grant) {
        fence = std::max(fence, answer.answer->grant->fence);
        pttls[m] = -2;
      } else {
        pttls[m] = answer.answer->holder_pttl;
      }
      continue;
    }
    refused = refused || answer.refused();
    failures.push_back(masters_[m]->server() + ": " + answer.failure("no answer within the round"));
  }
  // The validity counts from before the masters were asked: what the round took is spent, and
  // the drift allowance is kept back.
  if (won && SteadyClock::now() < valid_until(sent_at, request.ttl)) {
    record_grants(request.hold, answers, asking);
    round.grant = Grant{fence, sent_at};
    return round;
  }
  give_back(request.hold, asking);
  round.holder_pttl = until_a_majority_is_free(std::move(pttls), majority());
  if (answered < majority()) {
    const std::string why = "only " + std::to_string(answered) + " of " + std::to_string(masters) +
                            " masters answered, a majority is " + std::to_string(majority()) +
                            " (" + describe_failures(failures) + ")";
    if (refused) throw BackendUnavailable(std::string(request.hold.name), server_, why);
    throw TransientUnavailable(std::string(request.hold.name), server_, why);
  }
  return round;
}

void RedlockBackend::give_back(const HoldId& hold, MasterRound<Attempt>& round) {
  const auto owned = std::make_shared<const OwnedHold>(hold);
  for (std::size_t m = 0; m < masters_.size(); ++m) {
    round.then(m, *workers_[m], [master = asked_[m], owned](const MasterAnswer<Attempt>& answer) {
      if (!answer.answer || !answer.answer->grant) return;
      try {
        (void)master->backend().release({owned->id()});
      } catch (const Error&) {
        // That master's hold ends with its ttl.
      }
    });
  }
}

void RedlockBackend::record_grants(const HoldId& hold,
                                   const std::vector<MasterAnswer<Attempt>>& answers,
                                   MasterRound<Attempt>& round) {
  const std::string id(hold.acquisition_id);
  std::vector<bool> granted(masters_.size());
  for (std::size_t m = 0; m < masters_.size(); ++m)
    granted[m] = answers[m].answer && answers[m].answer->grant;
  granting_->record(id, std::move(granted));
  for (std::size_t m = 0; m < masters_.size(); ++m) {
    if (answers[m].answered()) continue;
    // Run on the master's worker before any later question of it, this acquisition's release
    // among them.
    round.then(m, *workers_[m], [granting = granting_, id, m](const MasterAnswer<Attempt>& late) {
      if (late.answer && late.answer->grant) granting->add(id, m);
    });
  }
}

ReleaseOutcome RedlockBackend::release(const ReleaseRequest& request) {
  const HoldId& hold = request.hold;
  const bool valid_when_sent = SteadyClock::now() < request.valid_until;
  const auto owned = std::make_shared<const OwnedHold>(hold);
  using Released = std::pair<ReleaseOutcome, bool>;
  MasterRound<Released> round(masters_.size(), LateQuestion::asked);
  const auto ask = [&](std::size_t m) {
    round.ask(m, *workers_[m], [master = asked_[m], owned, asked = request] {
      ReleaseRequest own = asked;
      own.hold = owned->id();
      const ReleaseOutcome outcome = master->backend().release(own);
      // Whether a master that no longer had the hold answered after the lease's validity:
      // while its release waited, its hold may have run out by its ttl.
      return std::pair(outcome, SteadyClock::now() >= own.valid_until);
    });
  };
  const auto released_by = [](const std::vector<MasterAnswer<Released>>& answers) {
    return static_cast<std::size_t>(
        std::count_if(answers.begin(), answers.end(), [](const MasterAnswer<Released>& a) {
          return a.answer && a.answer->first == ReleaseOutcome::released;
        }));
  };
  // Each master's release ends by its own command_timeout; the grace is the round's.
  const auto until = SteadyClock::now() + command_timeout_ + kStepGrace;
  // The waiters listen to the herald's release channel: it hears the release last, once the
  // others would make a majority with it, so that a waiter it wakes finds the lock free on a
  // majority rather than lose a round and give back, waking the next. The answers that come
  // after that count as well.
  const std::size_t last = herald_index();
  for (std::size_t m = 0; m < masters_.size(); ++m)
    if (m != last) ask(m);
  (void)round.wait(until, [&](const std::vector<MasterAnswer<Released>>& answers) {
    return released_by(answers) + 1 >= majority();
  });
  ask(last);
  const auto answers = round.wait(until, [&](const std::vector<MasterAnswer<Released>>& answers) {
    return released_by(answers) >= majority();
  });
  const std::vector<bool> granted = granting_->take(std::string(hold.acquisition_id));
  const auto had_it = [&](std::size_t m) { return granted.empty() || granted[m]; };
  std::size_t released = 0;
  std::size_t answered = 0;
  std::size_t gone_by_then = 0;
  std::size_t never_there = 0;
  std::size_t missing = 0;
  std::vector<std::string> failures;
  for (std::size_t m = 0; m < masters_.size(); ++m) {
    const MasterAnswer<Released>& answer = answers[m];
    if (answer.answer) {
      ++answered;
      if (answer.answer->first == ReleaseOutcome::released)
        ++released;
      else if (!had_it(m))
        ++never_there;
      else if (answer.answer->second)
        ++gone_by_then;
      else
        ++missing;
      continue;
    }
    failures.push_back(masters_[m]->server() + ": " + answer.failure("no answer in time"));
  }
  if (released >= majority()) return ReleaseOutcome::released;
  // Gone from a majority, the lease valid when its release went out: nobody else held the lock
  // while this lease did.
  if (released + gone_by_then >= majority() && valid_when_sent) return ReleaseOutcome::released;
  // Held by every master that granted it and answered, and free on a majority: a master that
  // granted it but does not answer keeps its hold to its ttl, a minority.
  if (missing == 0 && released + never_there >= majority() && valid_when_sent)
    return ReleaseOutcome::released;
  if (answered - released >= majority()) return ReleaseOutcome::not_held;
  throw BackendUnavailable(std::string(hold.name), server_,
                           "the release reached " + std::to_string(released) + " of " +
                               std::to_string(masters_.size()) + " masters (" +
                               describe_failures(failures) + ")");
}

void RedlockBackend::renew(std::span<RenewItem> items, SteadyClock::time_point deadline) {
  // Every master renews at once, within the deadline; the round goes on as soon as a majority
  // has renewed every item, or every master has answered.
  auto holds = std::make_shared<std::vector<OwnedHold>>();
  holds->reserve(items.size());
  for (const RenewItem& item : items) holds->emplace_back(item.hold);
  std::vector<RenewItem> asked(items.begin(), items.end());
  const auto ask = [masters = asked_, holds, asked, deadline](std::size_t m) {
    std::vector<RenewItem> own = asked;
    for (std::size_t i = 0; i < own.size(); ++i) {
      own[i].hold = (*holds)[i].id();
      own[i].outcome = RenewItem::Outcome::failed;
      own[i].error.clear();
    }
    masters[m]->backend().renew(own, deadline);
    return own;
  };
  using Renewed = std::vector<RenewItem>;
  const auto renewed_by_majority = [&](const std::vector<MasterAnswer<Renewed>>& answers) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::size_t renewed = 0;
      for (const auto& answer : answers)
        if (answer.answer && (*answer.answer)[i].outcome == RenewItem::Outcome::renewed) ++renewed;
      if (renewed < majority()) return false;
    }
    return true;
  };
  const auto answers = ask_every_master<Renewed>(workers_, LateQuestion::dropped, ask, deadline,
                                                 renewed_by_majority);

  std::vector<std::size_t> renewed(items.size(), 0);
  std::vector<std::size_t> lost(items.size(), 0);
  std::vector<std::string> errors(items.size());
  for (std::size_t m = 0; m < masters_.size(); ++m) {
    const std::string failed_all = answers[m].answer ? "" : answers[m].failure("no answer in time");
    for (std::size_t i = 0; i < items.size(); ++i) {
      const RenewItem* outcome = answers[m].answer ? &(*answers[m].answer)[i] : nullptr;
      switch (outcome ? outcome->outcome : RenewItem::Outcome::failed) {
        case RenewItem::Outcome::renewed:
          ++renewed[i];
          break;
        case RenewItem::Outcome::lost:
          ++lost[i];
          break;
        case RenewItem::Outcome::failed:
          errors[i] += (errors[i].empty() ? "" : "; ") + masters_[m]->server() + ": " +
                       (outcome ? outcome->error : failed_all);
          break;
      }
    }
  }
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
  return std::make_unique<RedlockBackend>(url.redacted(), std::move(masters), options, stats);
}

}  // namespace distlock::detail::redis
