// SPDX-License-Identifier: Apache-2.0
// One question asked of every Redlock master at once, each on its own worker (master_worker.h):
// a master that does not answer holds up its own question only, and the round goes on as soon as
// the answers decide it, or at its end without the masters still silent. A Redlock round's
// grants, its releases and its renewals are each one.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <distlock/duration.h>
#include <distlock/error.h>

#include "backends/backend.h"
#include "backends/redis/topology/master_worker.h"
#include "backends/redis/transport/server_error.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

// What one master said: its answer, or what its question threw; neither when it had not
// answered by the round's end.
template <class Answer>
struct MasterAnswer {
  std::optional<Answer> answer;
  std::exception_ptr error;

  bool answered() const { return answer.has_value() || error != nullptr; }
  // Why the master gave no answer: the reason of what its question threw, or `silence`.
  std::string failure(std::string_view silence) const {
    if (!error) return std::string(silence);
    try {
      std::rethrow_exception(error);
    } catch (const Error& thrown) {
      return thrown.reason();
    } catch (const std::exception& thrown) {
      return thrown.what();
    }
  }
  // Whether the master refused the question (server_error.h), rather than not answering it.
  bool refused() const {
    if (!error) return false;
    try {
      std::rethrow_exception(error);
    } catch (const Refused&) {
      return true;
    } catch (...) {
      return false;
    }
  }
};

// A round waits for its masters at least this long, even past its end (as a master's own
// renewal does, redis_backend.cpp): an answer late by little still counts.
inline constexpr Millis kShortestRoundWait{10};

// A hold's names, owned: a question still under way on a worker when its round has ended
// outlives the request that named the hold.
class OwnedHold {
 public:
  explicit OwnedHold(const HoldId& hold)
      : name_(hold.name),
        owner_(hold.owner),
        acquisition_id_(hold.acquisition_id),
        kind_(hold.kind) {}

  HoldId id() const { return {name_, owner_, acquisition_id_, kind_}; }

 private:
  std::string name_;
  std::string owner_;
  std::string acquisition_id_;
  LockKind kind_;
};

// What becomes of a question still waiting on its worker when its round has ended.
enum class LateQuestion {
  // Not asked: its answer would not be read. A renewal a round does not need; a frozen
  // master's queue does not grow by a question per renewal.
  dropped,
  // Asked all the same: a release that is late still frees the lock, and a grant that is late
  // is one the winner's release then reaches, whose message wakes the waiters that listen to
  // that master.
  asked,
};

// Questions asked of masters, each on its master's worker, and their answers as they come. A
// question begun goes on to its end on its worker, read or not, before what is posted there
// after it (a round that lost gives back a grant that came late, a winner's release reaches a
// master after its grant), so a question owns what it uses (OwnedHold). A question runs on a
// worker's thread; what it throws is its master's answer.
template <class Answer>
class MasterRound {
 public:
  MasterRound(std::size_t masters, LateQuestion late) : state_(std::make_shared<State>()) {
    state_->answers.resize(masters);
    state_->asked.resize(masters, false);
    state_->drop_late = late == LateQuestion::dropped;
  }

  // Asks `ask()` of master `m` on its `worker`.
  template <class Ask>
  void ask(std::size_t m, MasterWorker& worker, Ask ask) {
    {
      const std::lock_guard lock(state_->mutex);
      state_->asked[m] = true;
    }
    auto job = [state = state_, ask = std::move(ask), m] {
      {
        const std::lock_guard lock(state->mutex);
        if (state->drop_late && state->ended) return;
      }
      MasterAnswer<Answer> answer;
      try {
        answer.answer = ask();
      } catch (...) {
        answer.error = std::current_exception();
      }
      {
        const std::lock_guard lock(state->mutex);
        state->answers[m] = std::move(answer);
      }
      state->heard.notify_all();
    };
    try {
      worker.post(job);
    } catch (const std::system_error&) {
      job();  // no thread for it: in turn, then
    }
  }

  // Runs `then(answer)` on master `m`'s worker after its question, with that question's answer
  // (none if it was dropped). Not run if the worker has no thread.
  template <class Then>
  void then(std::size_t m, MasterWorker& worker, Then then) {
    auto job = [state = state_, then = std::move(then), m] {
      MasterAnswer<Answer> answer;
      {
        const std::lock_guard lock(state->mutex);
        answer = state->answers[m];
      }
      then(answer);
    };
    try {
      worker.post(std::move(job));
    } catch (const std::system_error&) {
      // No thread to run it on: what it would do is left undone (a hold, to its ttl).
    }
  }

  // The answers once `decided(answers)` holds, every master asked has answered, or `until` has
  // come (no sooner than kShortestRoundWait from now). The round has ended then.
  template <class Decided>
  std::vector<MasterAnswer<Answer>> wait(SteadyClock::time_point until, const Decided& decided) {
    std::unique_lock lock(state_->mutex);
    state_->heard.wait_until(lock, std::max(until, SteadyClock::now() + kShortestRoundWait), [&] {
      if (decided(state_->answers)) return true;
      for (std::size_t m = 0; m < state_->answers.size(); ++m)
        if (state_->asked[m] && !state_->answers[m].answered()) return false;
      return true;
    });
    state_->ended = true;
    return state_->answers;
  }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable heard;
    std::vector<MasterAnswer<Answer>> answers;
    std::vector<bool> asked;
    bool drop_late = false;
    bool ended = false;
  };
  // Shared with the questions, which may outlive the round.
  std::shared_ptr<State> state_;
};

// Asks `ask(i)` of every master at once, `workers[i]` the i-th's, and returns the answers as
// MasterRound::wait does.
template <class Answer, class Ask, class Decided>
std::vector<MasterAnswer<Answer>> ask_every_master(const std::vector<MasterWorker*>& workers,
                                                   LateQuestion late, const Ask& ask,
                                                   SteadyClock::time_point until,
                                                   const Decided& decided) {
  MasterRound<Answer> round(workers.size(), late);
  for (std::size_t i = 0; i < workers.size(); ++i)
    round.ask(i, *workers[i], [ask, i] { return ask(i); });
  return round.wait(until, decided);
}

}  // namespace distlock::detail::redis
