// SPDX-License-Identifier: Apache-2.0
// ClientCore::acquire_async: the blocking acquisition's steps (client_core.cpp), with the wait
// between them left to the backend and the client's async executor.
#include <exception>
#include <string>
#include <utility>

#include <distlock/log.h>

#include "core/async_operation.h"
#include "core/client_core.h"

namespace distlock::detail {
namespace {

// Calls the user's handler on the client's async thread, which must go on whatever it does: an
// exception it lets out is logged, not thrown there.
void deliver_to_handler(const Client::AcquireHandler& handler, std::exception_ptr error,
                        Lease lease) {
  try {
    handler(std::move(error), std::move(lease));
  } catch (const std::exception& thrown) {
    log(LogLevel::error, std::string("distlock: an acquire_async handler threw: ") + thrown.what() +
                             " (the exception is dropped)");
  } catch (...) {
    log(LogLevel::error, "distlock: an acquire_async handler threw (the exception is dropped)");
  }
}

}  // namespace

AsyncAcquisition ClientCore::acquire_async(const LockSpec& spec, const Key& key,
                                           Client::AcquireHandler handler) {
  struct Job {
    LockSpec spec;
    Preparation preparation;
    SteadyClock::time_point start;
    SteadyClock::time_point deadline;
    Client::AcquireHandler handler;
  };
  auto job = std::make_shared<Job>();
  job->spec = spec;
  job->handler = std::move(handler);
  try {
    job->preparation = prepare(spec, key, false);
  } catch (...) {
    async_executor_.post([job, error = std::current_exception()]() mutable {
      deliver_to_handler(job->handler, std::move(error), {});
    });
    return {};
  }
  job->start = SteadyClock::now();
  job->deadline = deadline_for(spec, IfBusy::wait_then_throw, job->start);
  std::string lock = job->preparation.identity.name;
  // The job's identity stays put (it is on the heap) while the request's views point into it.
  auto pending = backend_->acquire_async(
      request_for(job->preparation, job->deadline), async_executor_,
      [self = shared_from_this(), job](std::optional<Grant> grant,
                                       std::exception_ptr error) mutable {
        std::optional<Lease> lease;
        if (!error) {
          try {
            lease = self->settle(job->preparation, job->spec, grant, job->start, job->deadline,
                                 IfBusy::wait_then_throw);
          } catch (...) {
            error = std::current_exception();
          }
        }
        // The lease owns the client now. Kept past the handler, this owner could be the last
        // one, dropped on this thread after the handler let its caller go on and drop the
        // client: the client would then close on a thread of its own, perhaps after the
        // process's exit began.
        self.reset();
        deliver_to_handler(job->handler, std::move(error), lease ? std::move(*lease) : Lease());
      });
  return AsyncAcquisition(
      std::make_shared<AsyncOperation>(std::move(lock), server_, std::move(pending)));
}

}  // namespace distlock::detail
