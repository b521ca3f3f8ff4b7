// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/locks/release_courier.h"

#include <exception>
#include <utility>

#include "backends/redis/transport/server_error.h"

namespace distlock::detail::redis {

ReleaseCourier::ReleaseCourier(const std::string& server, ReadOwed read_owed, SendAgain send_again)
    : server_(server), read_owed_(std::move(read_owed)), send_again_(std::move(send_again)) {}

ReleaseCourier::~ReleaseCourier() { stop(SteadyClock::now()); }

void ReleaseCourier::sent(std::string_view lock, const Connection* pooled) {
  std::lock_guard guard(mutex_);
  if (pooled != nullptr) pooled_on_.insert_or_assign(std::string(lock), pooled);
  if (owed_since_) return;
  owed_since_ = SteadyClock::now();
  start_locked();
  woken_.notify_one();
}

void ReleaseCourier::answered(std::string_view lock, const Connection* pooled) {
  std::lock_guard guard(mutex_);
  const auto found = pooled_on_.find(std::string(lock));
  if (found != pooled_on_.end() && found->second == pooled) pooled_on_.erase(found);
}

const Connection* ReleaseCourier::connection_of(std::string_view lock) const {
  std::lock_guard guard(mutex_);
  if (pooled_on_.empty()) return nullptr;
  const auto found = pooled_on_.find(std::string(lock));
  return found == pooled_on_.end() ? nullptr : found->second;
}

bool ReleaseCourier::owes(std::string_view lock, const Connection* pooled) const {
  return connection_of(lock) == pooled;
}

void ReleaseCourier::undelivered(KeptRelease release, ReleaseReportHandler report) {
  Delivery delivery{std::move(release), std::move(report)};
  std::unique_lock lock(mutex_);
  if (stopped_) {
    lock.unlock();
    report_undelivered(delivery);
    return;
  }
  undelivered_.push_back(std::move(delivery));
  start_locked();
  woken_.notify_one();
}

void ReleaseCourier::stop(SteadyClock::time_point deadline) {
  std::unique_lock lock(mutex_);
  if (stopped_) return;
  stop_by_ = deadline;
  woken_.notify_one();
  std::thread thread = std::move(thread_);
  lock.unlock();
  if (thread.joinable()) thread.join();
  lock.lock();
  stopped_ = true;
  // Queued after the thread had finished.
  std::deque<Delivery> left;
  left.swap(undelivered_);
  lock.unlock();
  for (const auto& delivery : left) report_undelivered(delivery);
}

void ReleaseCourier::start_locked() {
  if (!thread_.joinable() && !stop_by_) thread_ = std::thread([this] { run(); });
}

void ReleaseCourier::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    if (!undelivered_.empty()) {
      const Delivery delivery = std::move(undelivered_.front());
      undelivered_.pop_front();
      const auto deadline = stop_by_.value_or(SteadyClock::time_point::max());
      lock.unlock();
      if (SteadyClock::now() >= deadline)
        report_undelivered(delivery);
      else
        deliver(delivery, deadline);
      lock.lock();
      continue;
    }
    // Stopping, what is owed is read at once: the connections close next.
    if (owed_since_ && (stop_by_ || SteadyClock::now() >= *owed_since_ + kReadOwedAfter)) {
      owed_since_.reset();
      lock.unlock();
      read_owed_();
      lock.lock();
      continue;
    }
    if (stop_by_) return;
    if (owed_since_)
      woken_.wait_until(lock, *owed_since_ + kReadOwedAfter);
    else
      woken_.wait(lock);
  }
}

void ReleaseCourier::deliver(const Delivery& delivery, SteadyClock::time_point deadline) const {
  ReleaseReport report;
  try {
    // `not_held` may say that the first send, whose reply was lost, removed the hold; but not
    // when that send went out after the lease's validity had ended: the hold had run out, a
    // loss the lease did not notice.
    const auto outcome = send_again_(delivery.release.request(), deadline);
    report.outcome = outcome == ReleaseOutcome::not_held && !delivery.release.sent_while_valid()
                         ? ReleaseOutcome::not_held
                         : ReleaseOutcome::released;
  } catch (const std::exception& error) {
    report.failure = error.what();
  }
  delivery.report(report);
}

void ReleaseCourier::report_undelivered(const Delivery& delivery) const {
  delivery.report({std::nullopt, ServerError(server_,
                                             "the release lost its connection, and the client "
                                             "closed before it could be sent again")
                                     .for_lock(delivery.release.lock())
                                     .what()});
}

}  // namespace distlock::detail::redis
