// SPDX-License-Identifier: Apache-2.0
// What distlock/asio.h and distlock/boost_asio.h share: the initiation of async_acquire and
// async_campaign, for either flavour of Asio. It starts Client::acquire_async (or
// campaign_async), hands the outcome to the completion handler on the handler's own executor,
// keeps that executor's work alive meanwhile, and turns a cancellation of the operation into
// AsyncAcquisition::cancel(). No Asio header here: each flavour names its own functions (a `Net`
// class of static functions).
#pragma once

#include <exception>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

#include <distlock/client.h>
#include <distlock/election.h>
#include <distlock/error.h>

namespace distlock::asio_detail {

// What an operation starts: an acquisition of a lock...
struct AcquireStart {
  using Result = Lease;
  Client* client;
  LockSpec spec;
  Key key;
  AsyncAcquisition operator()(Client::AcquireHandler done) const {
    return client->acquire_async(spec, key, std::move(done));
  }
};
// ... or a campaign in an election.
struct CampaignStart {
  using Result = Leadership;
  Client* client;
  ElectionSpec election;
  AsyncAcquisition operator()(Client::CampaignHandler done) const {
    return client->campaign_async(election, std::move(done));
  }
};

// `Net` provides, for its flavour of Asio:
//   executor_of(handler), slot_of(handler), work_for(executor), post(executor, function),
//   assign_cancellation(slot, function taking the cancellation type), aborted() (the
//   operation_aborted error code).
template <class Net>
struct AcquireInitiation {
  template <class Handler, class Start>
  void operator()(Handler&& handler, const Start& start) const {
    using Result = typename Start::Result;
    using Completion = std::decay_t<Handler>;
    using Work = decltype(Net::work_for(Net::executor_of(std::declval<Completion&>())));
    struct Pending {
      Completion handler;
      Work work;
    };
    auto executor = Net::executor_of(handler);
    auto pending = std::make_shared<Pending>(
        Pending{std::forward<Handler>(handler), Net::work_for(std::move(executor))});
    // The slot is connected before the acquisition starts: its completion may run at once on
    // another of the executor's threads, which clears the slot.
    auto slot = Net::slot_of(pending->handler);
    std::shared_ptr<Cancellation> cancellation;
    if (slot.is_connected()) {
      cancellation = std::make_shared<Cancellation>();
      // Any kind of cancellation may withdraw it: a waiter that leaves has changed nothing.
      Net::assign_cancellation(slot, [cancellation] { cancellation->request(); });
    }
    AsyncAcquisition acquisition = start([pending](std::exception_ptr error, Result result) {
      // This thread gives the work up once post() has returned, not the posted function:
      // after the handler ran, the context's run() may return and the context be destroyed
      // while post() is still waking the context's thread from here.
      Work work = std::move(pending->work);
      Net::post(work.get_executor(),
                [pending, error = std::move(error), result = std::move(result)]() mutable {
                  Net::slot_of(pending->handler).clear();
                  Completion handler = std::move(pending->handler);
                  std::move(handler)(translated(error), std::move(result));
                });
    });
    if (cancellation) cancellation->started(std::move(acquisition));
  }

  // A cancellation that may come before the acquisition it cancels has started.
  class Cancellation {
   public:
    void request() {
      std::unique_lock<std::mutex> lock(mutex_);
      requested_ = true;
      if (!started_) return;
      const AsyncAcquisition acquisition = acquisition_;
      lock.unlock();
      acquisition.cancel();
    }
    void started(AsyncAcquisition acquisition) {
      std::unique_lock<std::mutex> lock(mutex_);
      acquisition_ = std::move(acquisition);
      started_ = true;
      if (!requested_) return;
      const AsyncAcquisition requested = acquisition_;
      lock.unlock();
      requested.cancel();
    }

   private:
    std::mutex mutex_;
    AsyncAcquisition acquisition_;
    bool started_ = false;
    bool requested_ = false;
  };

  // A cancelled acquisition ends as every cancelled Asio operation does: operation_aborted.
  static std::exception_ptr translated(std::exception_ptr error) {
    if (!error) return error;
    try {
      std::rethrow_exception(error);
    } catch (const AcquisitionCancelled& cancelled) {
      return std::make_exception_ptr(typename Net::system_error(Net::aborted(), cancelled.what()));
    } catch (...) {
      return error;
    }
  }
};

}  // namespace distlock::asio_detail
