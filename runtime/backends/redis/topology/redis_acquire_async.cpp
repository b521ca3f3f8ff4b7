// SPDX-License-Identifier: Apache-2.0
// RedisBackend::acquire_async: a waiter without a thread (async_waiter.h) whose attempts, on
// the connection the lock commands share, are pipelined with the other waiters' of the client
// (attempt_pipeline.h).
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "backends/redis/locks/attempt_pipeline.h"
#include "backends/redis/locks/kind_calls.h"
#include "backends/redis/topology/async_waiter.h"
#include "backends/redis/topology/redis_backend.h"

namespace distlock::detail::redis {
namespace {

// The exception a try would throw for `error`: a Cluster's redirect as it came, another failure
// told of the lock.
std::exception_ptr told_of_lock(const ServerError& error, std::string_view lock) {
  try {
    if (const auto* redirected = dynamic_cast<const Redirected*>(&error)) throw *redirected;
    if (const auto* again = dynamic_cast<const TryAgain*>(&error)) throw *again;
    error.throw_for_lock(lock);
  } catch (...) {
    return std::current_exception();
  }
}

}  // namespace

std::unique_ptr<const AsyncWaitSteps> RedisBackend::make_async_steps(Asking asking) {
  auto steps = std::make_unique<AsyncWaitSteps>();
  if (asking == Asking::no && shares_lock_connection()) {
    steps->try_once = [this](const AcquireRequest& asked, AsyncExecutor& executor, Tried tried) {
      // Made on the executor's thread, which alone uses it.
      if (!pipeline_) pipeline_ = std::make_unique<AttemptPipeline>(executor);
      send_attempt(asked, *pipeline_, std::move(tried));
    };
  } else {
    steps->try_once = AsyncWaitSteps::waiting_for_reply(
        [this, asking](const AcquireRequest& asked) { return try_acquire(asked, asking); });
  }
  steps->watch = [this](const HoldId& hold, std::function<void()> on_change) {
    return watch_releases_async(hold, std::move(on_change));
  };
  steps->withdraw = [this](const HoldId& hold) {
    if (leaves_trace_when_waiting(hold.kind)) withdraw(hold);
  };
  return steps;
}

std::shared_ptr<PendingAcquisition> RedisBackend::acquire_async(const AcquireRequest& request,
                                                                AsyncExecutor& executor,
                                                                AcquireCompletion done,
                                                                Asking asking) {
  auto waiter = std::make_shared<AsyncWaiter>(
      request, Unheard::wait,
      settings_.min_replicas == 0 ? GrantMessage::taken : GrantMessage::asked_for,
      asking == Asking::no ? *async_steps_ : *async_steps_asking_, stats_, executor,
      settings_.outage_limit, std::move(done));
  waiter->start();
  return waiter;
}

void RedisBackend::send_attempt(const AcquireRequest& request, AttemptPipeline& pipeline,
                                Tried tried, const SharedConnection* failed) {
  // The lease's validity counts from the send time of the request that won, as attempt()'s.
  const auto sent_at = SteadyClock::now();
  const std::string token = std::to_string(attempt_token(sent_at));
  const std::string holder = holder_field();
  KindCall texts;
  const ScriptCall call = texts.acquire(request, holder, token, listener_.watched(request.hold));
  bool made = false;
  std::shared_ptr<SharedConnection> connection;
  try {
    connection = lock_connection(failed, made, request.deadline);
  } catch (const ServerError& error) {
    tried({}, told_of_lock(error, request.hold.name));
    return;
  }
  const bool reused = !made;
  const std::uint64_t generation = connection->generation();
  const SharedConnection* sent_on = connection.get();
  // Runs on whichever thread reads the reply (the pipeline's read, or a thread of the client
  // waiting for a reply of its own): the reply is read there, what it came to on the executor.
  auto on_reply = [this, &pipeline, request, sent_at, reused, generation, sent_on, failed,
                   tried](const redisReply* reply) {
    Attempt found;
    std::exception_ptr error;
    bool again = false;
    if (reply != nullptr) {
      try {
        found = read_acquire_reply(*reply, sent_at);
      } catch (const ServerError& refused) {
        error = told_of_lock(refused, request.hold.name);
      }
    } else {
      const ServerError broke = sent_on->failure();
      again = failed == nullptr &&
              worth_another_try(Retry::after_reset, broke, true, generation, reused,
                                AcquisitionDeadline(request.deadline).for_steps());
      if (!again) error = told_of_lock(broke, request.hold.name);
    }
    auto settle = [this, &pipeline, request, sent_on, again, found, error = std::move(error),
                   tried]() mutable {
      pipeline.settled();
      if (again)
        send_attempt(request, pipeline, std::move(tried), sent_on);
      else
        tried(found, std::move(error));
    };
    if (pipeline.executor().on_its_thread())
      settle();
    else
      pipeline.executor().post(std::move(settle));
  };
  ++stats_.round_trips;
  try {
    scripts_.send_unawaited(*connection, call, std::move(on_reply));
  } catch (const ServerError& error) {
    if (failed == nullptr && worth_another_try(Retry::after_reset, error, *connection, reused,
                                               AcquisitionDeadline(request.deadline).for_steps())) {
      send_attempt(request, pipeline, std::move(tried), sent_on);
      return;
    }
    tried({}, told_of_lock(error, request.hold.name));
    return;
  }
  pipeline.sent(connection);
}

}  // namespace distlock::detail::redis
