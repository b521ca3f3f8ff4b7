// SPDX-License-Identifier: Apache-2.0
// Where the master is. For redis:// and redis+unix:// the URL's server, always. For
// redis+sentinel:// what the sentinels say: asked once at the start, then followed through
// their +switch-master messages on a thread of its own, and asked again whenever a connection
// finds the master gone or demoted to a replica (refresh).
//
// Every change of master moves the generation on: connections remember the generation they
// were made in, so the pool can drop those to an old master, and the release listener
// resubscribes on the new one (on_moved).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "backends/redis/transport/connection_settings.h"
#include "core/step_deadline.h"
#include "util/event_fd.h"

namespace distlock::detail::redis {

class SubscriberConnection;

class MasterLocator {
 public:
  struct Master {
    Address address;
    std::uint64_t generation = 0;
  };

  // With sentinels, finds the master before returning: ServerError when no sentinel
  // answers, none knows the master name, or the server they name is not a master. `settings`
  // must outlive the locator.
  explicit MasterLocator(const ConnectionSettings& settings);
  MasterLocator(const MasterLocator&) = delete;
  MasterLocator& operator=(const MasterLocator&) = delete;
  // Stops the sentinel thread without waiting for any server.
  ~MasterLocator();

  Master current() const;
  // current().generation, without copying the address: asked on every command.
  std::uint64_t generation() const;

  // A connection made in generation `seen` found the master gone or a replica. Asks the
  // sentinels (unless another caller already moved past `seen`); true when the master is
  // now another one, so that a retry has somewhere new to go. Without sentinels: false.
  // Waits for another caller's refresh, connects to each sentinel and awaits its answers no
  // longer than `caller_deadline` allows (core/step_deadline.h); a caller whose deadline
  // passes first gets false unless the master moved meanwhile.
  bool refresh(std::uint64_t seen, SteadyClock::time_point caller_deadline = kNoCallerDeadline);

  // `moved` is called after the master changed, on the thread that learnt of it (the
  // sentinel thread, or a caller of refresh), and never again once this returns: the
  // owner of what `moved` touches clears it with an empty function before that goes.
  void set_on_moved(std::function<void()> moved);

 private:
  // The master as the sentinels name it, checked with ROLE. Throws ServerError saying what
  // each sentinel answered (and which were not asked: the caller's deadline had passed).
  Address ask_sentinels(SteadyClock::time_point caller_deadline = kNoCallerDeadline) const;
  // Makes `address` the master and tells on_moved. Returns the warning that says so, for the
  // caller to log once it holds no lock; empty when the master was already there.
  std::string move_to(const Address& address, std::string_view how);

  void watch_sentinels();
  // Serves one sentinel's +switch-master subscription until stopped (false) or failed
  // (throws).
  bool follow(SubscriberConnection& connection);

  const ConnectionSettings& settings_;
  // Sentinels take no password and have no databases.
  ConnectionSettings sentinel_settings_;

  mutable std::mutex mutex_;
  Master master_;
  // One refresh at a time: the others wait (by their deadlines) and see its outcome.
  std::mutex refresh_mutex_;
  std::condition_variable refresh_done_;
  bool refreshing_ = false;  // under refresh_mutex_
  // The sentinels named no master at the last refresh, and that was logged: during an
  // outage every call fails and says why in its error, but the log says it once.
  std::atomic<bool> sentinels_failing_{false};
  std::mutex on_moved_mutex_;  // held while on_moved_ runs, so clearing it waits for that
  std::function<void()> on_moved_;

  EventFd stop_;
  std::thread watcher_;
};

}  // namespace distlock::detail::redis
