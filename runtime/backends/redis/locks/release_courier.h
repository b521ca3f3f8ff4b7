// SPDX-License-Identifier: Apache-2.0
// A Lease leaving its scope sends its release without waiting for the reply
// (Backend::release_unawaited). The courier sees that each such release reaches the server, or
// that the process says it did not:
// - The reply is read by the next user of the connection the release went out on. On a
//   connection nobody uses for kReadOwedAfter (a quiet service), the courier reads it.
// - A release whose connection broke before its reply came (the server or a load balancer
//   closed the idle connection, a partition, a failover), or that could not go out, is sent
//   again by the courier, awaited, on a live connection; the scripts are idempotent per
//   acquisition id. The thread that left the scope never waits for it.
// - A release it cannot deliver is reported without an outcome: the core fires release_failed.
// - A release sent on a pooled connection is recorded until its reply is read: this client's
//   next acquisition of the same lock goes out on that connection, after the release. On
//   another connection it could reach the server first and find the lock still taken by its
//   own owner (the acquisition would take it over, and the release, coming late, would report
//   a loss).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "backends/backend.h"
#include "backends/kept_release.h"
#include "backends/redis/transport/connection.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

class ReleaseCourier {
 public:
  // How long a reply may wait on an idle connection before the courier reads it: long enough
  // that a busy service's own commands read it first, short enough that a release lost in a
  // connection that broke meanwhile is sent again well within a lock's ttl.
  static constexpr Millis kReadOwedAfter{100};

  // Reads the replies the backend's idle connections still owe, on the courier's thread. A
  // connection found broken tells its releases' handlers, which call undelivered().
  using ReadOwed = std::function<void()>;
  // The release, awaited and retried as Backend::release() is, giving up by the deadline
  // (the courier's stop, if it is stopping); throws when it cannot be made.
  using SendAgain =
      std::function<ReleaseOutcome(const ReleaseRequest&, SteadyClock::time_point deadline)>;

  // `server`, as messages name it, must outlive the courier.
  ReleaseCourier(const std::string& server, ReadOwed read_owed, SendAgain send_again);
  ReleaseCourier(const ReleaseCourier&) = delete;
  ReleaseCourier& operator=(const ReleaseCourier&) = delete;
  ~ReleaseCourier();

  // A release of `lock` went out, its reply to be read: on `pooled`, or on the shared
  // connection (nullptr), where the same lock's next acquisition goes after it anyway.
  void sent(std::string_view lock, const Connection* pooled = nullptr);
  // Its reply was read, or will not come.
  void answered(std::string_view lock, const Connection* pooled);
  // The pooled connection of the unanswered release of `lock`, or nullptr.
  const Connection* connection_of(std::string_view lock) const;
  bool owes(std::string_view lock, const Connection* pooled) const;

  // The release's connection broke before its reply came, or before it went out: it is sent
  // again on the courier's thread, and `report` hears the outcome. Once stopped, `report`
  // hears at once that it was not delivered.
  void undelivered(KeptRelease release, ReleaseReportHandler report);

  // Reads what idle connections owe and delivers what waits, giving up at `deadline`; later
  // calls to undelivered() report at once. The backend calls it before its connections close.
  void stop(SteadyClock::time_point deadline);

 private:
  struct Delivery {
    KeptRelease release;
    ReleaseReportHandler report;
  };

  void run();
  // Starts the thread on first need (under mutex_): most backends never send a release
  // unawaited (Cluster and Redlock await theirs), and owe it no thread.
  void start_locked();
  void deliver(const Delivery& delivery, SteadyClock::time_point deadline) const;
  void report_undelivered(const Delivery& delivery) const;

  const std::string& server_;
  const ReadOwed read_owed_;
  const SendAgain send_again_;
  mutable std::mutex mutex_;
  std::condition_variable woken_;
  std::unordered_map<std::string, const Connection*> pooled_on_;
  // The first release sent since the courier last read the idle connections.
  std::optional<SteadyClock::time_point> owed_since_;
  std::deque<Delivery> undelivered_;
  std::optional<SteadyClock::time_point> stop_by_;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace distlock::detail::redis
