// SPDX-License-Identifier: Apache-2.0
// ClientCore::acquire_async: the blocking acquisition's steps (client_core.cpp), with the wait
// between them left to the backend and the client's async executor.
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <distlock/log.h>

#include "core/async_operation.h"
#include "core/client_core.h"
#include "core/deferred_acquisition.h"

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
  return acquire_async_for(spec, key, Holder::no_thread, std::move(handler));
}

AsyncAcquisition ClientCore::acquire_async_for(const LockSpec& spec, const Key& key, Holder holder,
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
    job->preparation = prepare(spec, key, holder);
  } catch (...) {
    const std::uint64_t serial = async_began({});
    async_executor_.post([this, serial, job, error = std::current_exception()]() mutable {
      deliver_to_handler(job->handler, std::move(error), {});
      async_ended(serial);
    });
    return {};
  }
  job->start = SteadyClock::now();
  job->deadline = deadline_for(spec, IfBusy::wait_then_throw, job->start);
  std::string lock = job->preparation.identity.name;
  const std::uint64_t serial = async_began(lock);
  // The job's identity stays put (it is on the heap) while the request's views point into it.
  // The completion does not own the core (client_core.h): it runs before the core is gone, which
  // waits for it, but the core may be closing.
  // A backend that cannot start it (out of memory) throws: nothing is pending then.
  struct Started {
    ClientCore& core;
    std::uint64_t serial;
    bool started = false;
    ~Started() {
      if (!started) core.async_ended(serial);
    }
  } started{*this, serial};
  const AcquireCompletion completion = [this, core = weak_from_this(), serial, job](
                                           std::optional<Grant> grant,
                                           std::exception_ptr error) mutable {
    std::shared_ptr<ClientCore> self = core.lock();
    if (!self && !error) {
      if (grant) give_back(job->preparation.identity);
      error = std::make_exception_ptr(AcquisitionCancelled(job->preparation.identity.name, server(),
                                                           "the client closed while it waited"));
    }
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
    async_ended(serial);
  };
  const AcquireRequest request = request_for(job->preparation, job->deadline);
  std::shared_ptr<PendingAcquisition> pending;
  // This client's own release of the lock, still on its way, goes first: the acquisition starts
  // on the releases' thread once it is made.
  if (unawaited_releases_.releasing(request.hold.name)) {
    auto deferred = std::make_shared<DeferredAcquisition>([this,
                                                           completion](std::exception_ptr why) {
      async_executor_.post([completion, why = std::move(why)] { completion(std::nullopt, why); });
    });
    unawaited_releases_.start_after_release(
        request.hold.name, [this, request, completion, deferred, job] {
          if (!deferred->begin_start()) return;
          std::shared_ptr<PendingAcquisition> acquisition;
          try {
            acquisition = backend_->acquire_async(request, async_executor_, completion);
          } catch (...) {
            deferred->started(nullptr);
            async_executor_.post([completion, error = std::current_exception()] {
              completion(std::nullopt, error);
            });
            return;
          }
          deferred->started(acquisition);
        });
    pending = std::move(deferred);
  } else {
    pending = backend_->acquire_async(request, async_executor_, completion);
  }
  started.started = true;
  async_pending(serial, pending);
  return AsyncAcquisition(
      std::make_shared<AsyncOperation>(std::move(lock), server_, std::move(pending)));
}

std::uint64_t ClientCore::async_began(std::string lock) {
  const std::lock_guard guard(async_mutex_);
  const std::uint64_t serial = next_async_serial_++;
  pending_async_.emplace(serial, PendingAsync{{}, std::move(lock)});
  return serial;
}

void ClientCore::async_pending(std::uint64_t serial, std::weak_ptr<PendingAcquisition> pending) {
  const std::lock_guard guard(async_mutex_);
  // Not there when it has ended already.
  if (const auto found = pending_async_.find(serial); found != pending_async_.end())
    found->second.pending = std::move(pending);
}

void ClientCore::async_ended(std::uint64_t serial) {
  const std::lock_guard guard(async_mutex_);
  pending_async_.erase(serial);
  async_ended_.notify_all();
}

void ClientCore::end_pending_async() {
  std::unique_lock lock(async_mutex_);
  std::vector<std::pair<std::shared_ptr<PendingAcquisition>, std::string>> withdrawn;
  for (const auto& [serial, async] : pending_async_)
    if (auto pending = async.pending.lock()) withdrawn.emplace_back(std::move(pending), async.lock);
  lock.unlock();
  // Outside the lock: a withdrawal that finds its acquisition ended calls nothing, and one that
  // ends it posts the completion, which takes the lock.
  for (const auto& [pending, name] : withdrawn)
    pending->withdraw(std::make_exception_ptr(AcquisitionCancelled(
        name, server(),
        "the client closed while it waited: it holds nothing and left no place behind")));
  withdrawn.clear();
  lock.lock();
  async_ended_.wait(lock, [this] { return pending_async_.empty(); });
}

void ClientCore::give_back(const LeaseIdentity& identity) {
  send_unawaited(
      ReleaseRequest{identity.hold()}, [name = identity.name](const ReleaseReport& report) {
        if (report.outcome) return;
        log(LogLevel::error, report.failure + " (giving back the lock '" + name +
                                 "', granted as its client closed: it stays taken until its "
                                 "ttl runs out)");
      });
}

}  // namespace distlock::detail
