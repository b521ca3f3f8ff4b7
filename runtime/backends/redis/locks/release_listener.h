// SPDX-License-Identifier: Apache-2.0
// Wakes local waiters when a lock they wait for is released: Redis pub/sub over one
// subscriber connection and one thread per backend. A channel is subscribed while at least
// one local waiter watches it.
//
// A waiter cannot miss a release if it goes about it in this order:
//
//   auto ticket = listener.watch(channel);
//   ticket.wait_subscribed(limit);          // the server confirmed the subscription
//   for (;;) {
//     const auto seen = ticket.generation();
//     ... try to acquire; return if won ...
//     ticket.wait_for_release(seen, until); // returns at once if a release came meanwhile
//   }
//
// Each release message moves the channel's generation on and wakes one waiter (all of them
// on a channel watched with lets_many_in) and, as it names nobody (an empty payload), every
// waiter that watches under a name too. A release that keeps the lock taken for a while
// (hold_at_least) publishes "*", which wakes every waiter: each asks again and learns until
// when. A message that names someone (a fair lock's release
// names the waiter it granted the lock to, '<name> <fence> <attempt token>', or the first waiter
// in its queue)
// wakes the waiter here that watches under that name, if any, and nobody else. Every
// confirmed SUBSCRIBE moves it on too and wakes all of them: a waiter that retried before
// the confirmation (a slow subscription, or a resubscription after the connection dropped)
// may have missed a release. Correctness never rests on pub/sub alone: waiters bound every
// wait by the holder's ttl.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <hiredis/hiredis.h>

#include "backends/backend.h"
#include "backends/redis/transport/connection_settings.h"
#include "backends/redis/transport/master_locator.h"
#include "core/stats.h"
#include "util/event_fd.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

class SubscriberConnection;

class ReleaseListener {
 public:
  // A release's grant of the lock to a named waiter: its fence, and the token of the waiter's
  // attempt that the grant came after.
  struct Granted {
    std::uint64_t fence = 0;
    std::uint64_t attempt = 0;
  };

 private:
  // The waiters that watch a channel under one name.
  struct Addressee {
    unsigned tickets = 0;
    std::uint64_t messages = 0;  // messages that named it
    // The latest grant a release announced to it ('<name> <fence> <attempt token>').
    std::optional<Granted> granted;
    std::condition_variable named;
    // The AsyncTickets watching under this name: called where `named` is notified.
    std::list<std::function<void()>> wakers;
  };
  struct Channel {
    unsigned watchers = 0;
    // The last (UN)SUBSCRIBE sent for it on the current connection was SUBSCRIBE.
    bool requested = false;
    // SUBSCRIBEs sent but not confirmed yet.
    unsigned confirmations_due = 0;
    // The server confirmed the latest SUBSCRIBE, so every later release reaches us.
    bool subscribed = false;
    std::uint64_t generation = 0;
    // What every named waiter must hear of too: confirmed subscriptions (it may have missed a
    // release before one) and releases that name nobody (a plain lock's release of a name a
    // fair waiter waits for).
    std::uint64_t for_everyone = 0;
    // A release may let every waiter in (the readers of a read-write lock), not one.
    bool wakes_all = false;
    std::unordered_map<std::string, Addressee> addressees;
    std::condition_variable subscribed_changed;
    std::condition_variable released;
    // The AsyncTickets watching under no name: called where `released` is notified, one at
    // a time in turn where it notifies one.
    std::list<std::function<void()>> wakers;
  };
  using Channels = std::unordered_map<std::string, Channel>;

 public:
  using TimePoint = SteadyClock::time_point;

  // Interest in one channel, for as long as it lives.
  class Ticket {
   public:
    // `addressee`: the channel's entry for the name it watches under, or null.
    Ticket(ReleaseListener& listener, Channels::value_type& channel,
           std::unordered_map<std::string, Addressee>::value_type* addressee)
        : listener_(listener), channel_(channel), addressee_(addressee) {}
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket() { listener_.unwatch(channel_, addressee_); }

    // Waits until the server confirmed the subscription; false if `until` came first.
    bool wait_subscribed(TimePoint until);
    // Whether the server confirmed the subscription and the connection still stands.
    bool subscribed() const;
    // The latest grant of the lock to the name this ticket watches under that a message
    // announced, if any.
    std::optional<Granted> granted() const;
    std::uint64_t generation() const;
    enum class Woken { by_release, by_timeout, by_lost_subscription };
    // Waits until the generation differs from `seen` or `until` comes; with
    // `or_lost_subscription`, also until the subscription is lost.
    Woken wait_for_release(std::uint64_t seen, TimePoint until, bool or_lost_subscription = false);

   private:
    ReleaseListener& listener_;
    Channels::value_type& channel_;
    std::unordered_map<std::string, Addressee>::value_type* addressee_;
  };

  // Interest in one channel for a waiter without a thread (an asynchronous acquisition): what
  // would wake a Ticket's waiting thread calls `on_change` instead, under the listener's mutex,
  // so it must only post the waiter's next step. The waiter then reads the generation, the
  // subscription and the grant as a Ticket's does.
  class AsyncTicket {
   public:
    AsyncTicket(ReleaseListener& listener, Channels::value_type& channel,
                std::unordered_map<std::string, Addressee>::value_type* addressee,
                std::function<void()> on_change);
    AsyncTicket(const AsyncTicket&) = delete;
    AsyncTicket& operator=(const AsyncTicket&) = delete;
    ~AsyncTicket();

    bool subscribed() const { return ticket_.subscribed(); }
    std::optional<Granted> granted() const { return ticket_.granted(); }
    std::uint64_t generation() const { return ticket_.generation(); }
    // For a waiter that leaves without trying again after a release may have woken it in
    // another's stead: wakes another waiter of the channel, if there is one.
    void pass_on();

   private:
    std::list<std::function<void()>>& wakers() const;

    Ticket ticket_;
    ReleaseListener& listener_;
    Channels::value_type& channel_;
    std::unordered_map<std::string, Addressee>::value_type* addressee_;
    std::list<std::function<void()>>::iterator waker_;
  };

  // Starts the subscriber thread; it connects in the background, to the master `locator`
  // names. `settings` and `locator` must outlive the listener.
  ReleaseListener(const ConnectionSettings& settings, const MasterLocator& locator,
                  StatsCounters& stats);
  ReleaseListener(const ReleaseListener&) = delete;
  ReleaseListener& operator=(const ReleaseListener&) = delete;
  // Stops and joins the thread without waiting for the server.
  ~ReleaseListener();

  // `lets_many_in`: one release can let in every waiter of the channel (readers), so each
  // release message wakes them all, not one. `addressee`: wake this waiter only for the
  // messages that name it (and for confirmed subscriptions); empty: for any message.
  Ticket watch(const std::string& channel, bool lets_many_in = false,
               std::string_view addressee = {});
  // The same for a waiter without a thread, which `on_change` wakes.
  std::unique_ptr<AsyncTicket> watch_async(const std::string& channel, bool lets_many_in,
                                           std::string_view addressee,
                                           std::function<void()> on_change);
  // Whether a waiter here watches `channel` now (an acquisition's own ticket counts). An
  // acquisition that wins while others here wait marks the lock as waited for, so that its
  // release wakes them: they tried before the grant and will not mark it themselves. Cheap
  // while nobody waits for anything.
  bool watched(const HoldId& hold) const;
  // Resubscribes everything on the master the locator names now. Any thread.
  void master_moved() { moved_.signal(); }

 private:
  // Counts a watcher of `channel` (under `addressee`, if any), subscribing on the first.
  std::pair<Channels::value_type*, std::unordered_map<std::string, Addressee>::value_type*>
  register_watcher(const std::string& channel, bool lets_many_in, std::string_view addressee);
  void unwatch(Channels::value_type& channel,
               std::unordered_map<std::string, Addressee>::value_type* addressee);
  // Drops the entry once nobody watches it and the server owes it nothing.
  void erase_if_unused(Channels::iterator channel);
  // Every waiter of the channel looks again, named or not. Under the mutex.
  void wake_everyone(Channel& channel);
  // Calls every waker of `wakers`, or the one whose turn it is. Under the mutex.
  static void call_all(const std::list<std::function<void()>>& wakers);
  static void call_next(std::list<std::function<void()>>& wakers);

  void run();
  enum class Served { stopped, master_moved };
  // Serves one connection until stopped, or the master moved, or it fails (throws).
  Served serve(SubscriberConnection& connection);
  void send_requests(SubscriberConnection& connection);
  void handle(const redisReply& reply);
  void forget_subscriptions();
  // Sharded pub/sub: a SUNSUBSCRIBE push, ours or because the channel's slot moved away.
  void forget_moved_channel(const std::string& name);
  void report_outage(std::string_view reason) const;
  // Sleeps, unless stopped first (false).
  bool pause(std::chrono::milliseconds duration);

  const ConnectionSettings& settings_;
  const MasterLocator& locator_;
  StatsCounters& stats_;
  EventFd requests_;  // a channel in dirty_ needs (UN)SUBSCRIBE
  EventFd moved_;
  EventFd stop_;

  mutable std::mutex mutex_;
  Channels channels_;
  // The tickets alive, on every channel: read without the mutex before looking one up.
  std::atomic<std::size_t> tickets_ = 0;
  std::vector<std::string> dirty_;
  bool stopping_ = false;

  std::thread thread_;
};

}  // namespace distlock::detail::redis
