// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/locks/release_listener.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <distlock/log.h>

#include "backends/redis/locks/kind_calls.h"
#include "backends/redis/transport/reconnect_delays.h"
#include "backends/redis/transport/reply.h"
#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/subscriber_connection.h"
#include "util/decimal.h"
#include "util/failure_message.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {
namespace {

// What a release that keeps its lock taken for a while (hold_at_least) publishes: every waiter
// asks again, to learn how long, as it may sleep for the holder's whole ttl otherwise. No
// acquisition id is "*".
constexpr std::string_view kEveryoneAskAgain = "*";

// The kind of a pub/sub push reply, such as "message" in ["message", channel, payload];
// empty for other replies.
std::string_view push_kind(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_ARRAY || reply.elements < 3) return {};
  return reply_text(*reply.element[0]);
}

// The first word of `text` as a number, and the rest after one space; nullopt unless the word
// is all digits.
std::optional<std::uint64_t> take_number(std::string_view& text) {
  const auto space = text.find(' ');
  const auto number = parse_decimal<std::uint64_t>(text.substr(0, space));
  if (number) text.remove_prefix(space == std::string_view::npos ? text.size() : space + 1);
  return number;
}

// A named message's waiter, and the grant to it if the message says '<name> <fence> <attempt
// token>'. Names have no spaces (acquisition ids).
std::pair<std::string_view, std::optional<ReleaseListener::Granted>> split_grant(
    std::string_view payload) {
  const auto space = payload.find(' ');
  if (space == std::string_view::npos) return {payload, std::nullopt};
  std::string_view rest = payload.substr(space + 1);
  const auto fence = take_number(rest);
  const auto attempt = fence ? take_number(rest) : std::nullopt;
  if (!attempt || !rest.empty()) return {payload, std::nullopt};
  return {payload.substr(0, space), ReleaseListener::Granted{*fence, *attempt}};
}

}  // namespace

bool ReleaseListener::Ticket::wait_subscribed(TimePoint until) {
  std::unique_lock lock(listener_.mutex_);
  Channel& channel = channel_.second;
  return channel.subscribed_changed.wait_until(
      lock, until, [&] { return channel.subscribed || listener_.stopping_; });
}

bool ReleaseListener::Ticket::subscribed() const {
  std::lock_guard lock(listener_.mutex_);
  return channel_.second.subscribed;
}

std::optional<ReleaseListener::Granted> ReleaseListener::Ticket::granted() const {
  std::lock_guard lock(listener_.mutex_);
  if (!addressee_) return std::nullopt;
  return addressee_->second.granted;
}

std::uint64_t ReleaseListener::Ticket::generation() const {
  std::lock_guard lock(listener_.mutex_);
  if (addressee_) return channel_.second.for_everyone + addressee_->second.messages;
  return channel_.second.generation;
}

ReleaseListener::Ticket::Woken ReleaseListener::Ticket::wait_for_release(
    std::uint64_t seen, TimePoint until, bool or_lost_subscription) {
  std::unique_lock lock(listener_.mutex_);
  Channel& channel = channel_.second;
  const auto current = [&] {
    return addressee_ ? channel.for_everyone + addressee_->second.messages : channel.generation;
  };
  const auto woken = [&] {
    return current() != seen || listener_.stopping_ ||
           (or_lost_subscription && !channel.subscribed);
  };
  auto& wakes = addressee_ ? addressee_->second.named : channel.released;
  if (!wakes.wait_until(lock, until, woken)) return Woken::by_timeout;
  if (current() != seen || listener_.stopping_) return Woken::by_release;
  return Woken::by_lost_subscription;
}

ReleaseListener::AsyncTicket::AsyncTicket(
    ReleaseListener& listener, Channels::value_type& channel,
    std::unordered_map<std::string, Addressee>::value_type* addressee,
    std::function<void()> on_change)
    : ticket_(listener, channel, addressee),
      listener_(listener),
      channel_(channel),
      addressee_(addressee) {
  std::lock_guard lock(listener_.mutex_);
  waker_ = wakers().insert(wakers().end(), std::move(on_change));
}

ReleaseListener::AsyncTicket::~AsyncTicket() {
  std::lock_guard lock(listener_.mutex_);
  wakers().erase(waker_);
}

void ReleaseListener::AsyncTicket::pass_on() {
  std::lock_guard lock(listener_.mutex_);
  Channel& channel = channel_.second;
  // A named waiter and a reader hear every message meant for them: only a message that woke
  // one waiter of the channel in its turn can be lost with it.
  if (addressee_ != nullptr || channel.wakes_all) return;
  ++channel.generation;
  channel.released.notify_one();
  // This waiter to the back: the turn is another's.
  channel.wakers.splice(channel.wakers.end(), channel.wakers, waker_);
  if (channel.wakers.size() > 1) call_next(channel.wakers);
}

std::list<std::function<void()>>& ReleaseListener::AsyncTicket::wakers() const {
  return addressee_ != nullptr ? addressee_->second.wakers : channel_.second.wakers;
}

ReleaseListener::ReleaseListener(const ConnectionSettings& settings, const MasterLocator& locator,
                                 StatsCounters& stats)
    : settings_(settings),
      locator_(locator),
      stats_(stats),
      requests_(settings.server),
      moved_(settings.server),
      stop_(settings.server),
      thread_([this] { run(); }) {}

ReleaseListener::~ReleaseListener() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& [name, channel] : channels_) {
      channel.subscribed_changed.notify_all();
      channel.released.notify_all();
      for (auto& [id, addressee] : channel.addressees) addressee.named.notify_all();
    }
  }
  stop_.signal();
  thread_.join();
}

std::pair<ReleaseListener::Channels::value_type*,
          std::unordered_map<std::string, ReleaseListener::Addressee>::value_type*>
ReleaseListener::register_watcher(const std::string& channel, bool lets_many_in,
                                  std::string_view addressee) {
  bool first = false;
  Channels::value_type* entry = nullptr;
  std::unordered_map<std::string, Addressee>::value_type* named = nullptr;
  {
    std::lock_guard lock(mutex_);
    entry = &*channels_.try_emplace(channel).first;
    first = ++entry->second.watchers == 1;
    ++tickets_;
    entry->second.wakes_all = entry->second.wakes_all || lets_many_in;
    if (!addressee.empty()) {
      named = &*entry->second.addressees.try_emplace(std::string(addressee)).first;
      ++named->second.tickets;
    }
    if (first) dirty_.push_back(channel);
  }
  if (first) requests_.signal();
  return {entry, named};
}

bool ReleaseListener::watched(const HoldId& hold) const {
  if (tickets_ == 0) return false;
  const std::string channel = release_channel_of(hold);
  const std::lock_guard lock(mutex_);
  const auto entry = channels_.find(channel);
  return entry != channels_.end() && entry->second.watchers > 0;
}

ReleaseListener::Ticket ReleaseListener::watch(const std::string& channel, bool lets_many_in,
                                               std::string_view addressee) {
  const auto [entry, named] = register_watcher(channel, lets_many_in, addressee);
  return Ticket(*this, *entry, named);
}

std::unique_ptr<ReleaseListener::AsyncTicket> ReleaseListener::watch_async(
    const std::string& channel, bool lets_many_in, std::string_view addressee,
    std::function<void()> on_change) {
  const auto [entry, named] = register_watcher(channel, lets_many_in, addressee);
  return std::make_unique<AsyncTicket>(*this, *entry, named, std::move(on_change));
}

void ReleaseListener::unwatch(Channels::value_type& entry,
                              std::unordered_map<std::string, Addressee>::value_type* addressee) {
  bool last = false;
  {
    std::lock_guard lock(mutex_);
    if (addressee && --addressee->second.tickets == 0)
      entry.second.addressees.erase(entry.second.addressees.find(addressee->first));
    last = --entry.second.watchers == 0;
    --tickets_;
    if (last) {
      dirty_.push_back(entry.first);
      erase_if_unused(channels_.find(entry.first));
    }
  }
  if (last) requests_.signal();
}

void ReleaseListener::erase_if_unused(Channels::iterator channel) {
  const Channel& state = channel->second;
  if (state.watchers == 0 && !state.requested && state.confirmations_due == 0)
    channels_.erase(channel);
}

void ReleaseListener::report_outage(std::string_view reason) const {
  log(LogLevel::warning,
      failure_message("", settings_.server,
                      "release notifications interrupted (" + std::string(reason) +
                          "); waiters fall back to the holder's ttl until they resume"));
}

void ReleaseListener::run() {
  auto retry_after = kFirstReconnectDelay;
  bool failing = false;
  for (;;) {
    try {
      // Drained before reading the address: a move after this is signalled anew.
      moved_.drain();
      const auto connection =
          SubscriberConnection::open(settings_, locator_.current().address, stop_.fd());
      if (!connection) return;
      if (failing)
        log(LogLevel::info, failure_message("", settings_.server, "release notifications resumed"));
      failing = false;
      retry_after = kFirstReconnectDelay;
      if (serve(*connection) == Served::stopped) return;
      // The new subscriptions' confirmations wake the waiters, as after any outage.
      forget_subscriptions();
      continue;
    } catch (const ServerError& error) {
      if (!failing) report_outage(error.reason());
      failing = true;
    } catch (const std::exception& error) {
      if (!failing) report_outage(error.what());
      failing = true;
    }
    forget_subscriptions();
    if (!pause(retry_after)) return;
    retry_after = std::min(retry_after * 2, kLongestReconnectDelay);
  }
}

ReleaseListener::Served ReleaseListener::serve(SubscriberConnection& connection) {
  {
    std::lock_guard lock(mutex_);
    // A new connection subscribes to everything watched, whatever was pending before.
    dirty_.clear();
    for (const auto& [name, channel] : channels_)
      if (channel.watchers > 0) dirty_.push_back(name);
  }
  send_requests(connection);
  for (;;) {
    const short socket_events = POLLIN | (connection.has_output() ? POLLOUT : 0);
    pollfd fds[] = {{connection.fd(), socket_events, 0},
                    {requests_.fd(), POLLIN, 0},
                    {stop_.fd(), POLLIN, 0},
                    {moved_.fd(), POLLIN, 0}};
    if (poll(fds, 4, -1) < 0) {
      if (errno == EINTR) continue;
      throw ServerError(settings_.server, "poll failed: " + reason_text(std::strerror(errno)));
    }
    if (fds[2].revents != 0) return Served::stopped;
    if (fds[3].revents != 0) return Served::master_moved;
    if (fds[1].revents != 0) {
      // Drained before reading dirty_: a request queued after this is signalled anew.
      requests_.drain();
      send_requests(connection);
    }
    if ((fds[0].revents & POLLOUT) != 0) connection.flush();
    if ((fds[0].revents & ~POLLOUT) != 0)
      for (const auto& reply : connection.receive()) handle(*reply);
  }
}

void ReleaseListener::send_requests(SubscriberConnection& connection) {
  const bool sharded = settings_.sharded_pubsub;
  std::lock_guard lock(mutex_);
  for (const auto& name : dirty_) {
    const auto found = channels_.find(name);
    if (found == channels_.end()) continue;
    Channel& channel = found->second;
    if (channel.watchers > 0 && !channel.requested) {
      const std::string_view command[] = {sharded ? "SSUBSCRIBE" : "SUBSCRIBE", name};
      connection.send(command);
      channel.requested = true;
      ++channel.confirmations_due;
    } else if (channel.watchers == 0 && channel.requested) {
      const std::string_view command[] = {sharded ? "SUNSUBSCRIBE" : "UNSUBSCRIBE", name};
      connection.send(command);
      channel.requested = false;
      channel.subscribed = false;
      erase_if_unused(found);
    }
  }
  dirty_.clear();
}

void ReleaseListener::handle(const redisReply& reply) {
  if (is_error(reply))
    throw ServerError(settings_.server, "the subscriber got an error: " + describe_reply(reply));
  // Sharded pub/sub (a cluster) names its pushes with an "s" in front.
  std::string_view kind = push_kind(reply);
  if (settings_.sharded_pubsub && kind.starts_with('s')) kind.remove_prefix(1);
  if (kind == "unsubscribe" && settings_.sharded_pubsub) {
    forget_moved_channel(std::string(reply_text(*reply.element[1])));
    return;
  }
  if (kind != "message" && kind != "subscribe") return;
  const std::string channel_name(reply_text(*reply.element[1]));

  std::lock_guard lock(mutex_);
  const auto found = channels_.find(channel_name);
  if (found == channels_.end()) return;
  Channel& channel = found->second;
  if (kind == "message") {
    ++stats_.notifications;
    const std::string_view payload = reply_text(*reply.element[2]);
    if (payload == kEveryoneAskAgain) {
      wake_everyone(channel);
      return;
    }
    if (!payload.empty()) {
      const auto [name, granted] = split_grant(payload);
      if (const auto named = channel.addressees.find(std::string(name));
          named != channel.addressees.end()) {
        ++named->second.messages;
        if (granted) named->second.granted = granted;
        named->second.named.notify_all();
        call_all(named->second.wakers);
      }
      return;
    }
    ++channel.generation;
    if (!channel.addressees.empty()) {
      ++channel.for_everyone;
      for (auto& [id, addressee] : channel.addressees) {
        addressee.named.notify_all();
        call_all(addressee.wakers);
      }
    }
    // One release frees the lock for one taker (readers excepted). A woken waiter that loses
    // the race to another client waits again and is woken by that client's release.
    if (channel.wakes_all) {
      channel.released.notify_all();
      call_all(channel.wakers);
    } else {
      channel.released.notify_one();
      call_next(channel.wakers);
    }
    return;
  }
  if (channel.confirmations_due == 0) return;
  // Replies come in order, so once the latest SUBSCRIBE is confirmed the server has applied
  // every earlier (UN)SUBSCRIBE too.
  if (--channel.confirmations_due == 0 && channel.requested) {
    channel.subscribed = true;
    channel.subscribed_changed.notify_all();
    // Waiters that retried before this confirmation could have missed a release.
    wake_everyone(channel);
  }
  erase_if_unused(found);
}

void ReleaseListener::wake_everyone(Channel& channel) {
  ++channel.generation;
  ++channel.for_everyone;
  channel.released.notify_all();
  call_all(channel.wakers);
  for (auto& [id, addressee] : channel.addressees) {
    addressee.named.notify_all();
    call_all(addressee.wakers);
  }
}

void ReleaseListener::call_all(const std::list<std::function<void()>>& wakers) {
  for (const auto& waker : wakers) waker();
}

void ReleaseListener::call_next(std::list<std::function<void()>>& wakers) {
  if (wakers.empty()) return;
  // The one woken now goes to the back: the next release wakes another.
  wakers.splice(wakers.end(), wakers, wakers.begin());
  wakers.back()();
}

void ReleaseListener::forget_moved_channel(const std::string& name) {
  std::lock_guard lock(mutex_);
  const auto found = channels_.find(name);
  if (found == channels_.end()) return;
  Channel& channel = found->second;
  // Our own SUNSUBSCRIBE, confirmed; or the node telling us the slot has left it, which
  // leaves the subscription gone: the waiters' next try finds the lock's new master (MOVED)
  // and watches it there, and meanwhile their wait is bounded by the holder's ttl.
  if (channel.requested && channel.confirmations_due == 0) {
    channel.requested = false;
    channel.subscribed = false;
  }
  erase_if_unused(found);
}

void ReleaseListener::forget_subscriptions() {
  std::lock_guard lock(mutex_);
  dirty_.clear();
  for (auto it = channels_.begin(); it != channels_.end();) {
    Channel& channel = it->second;
    channel.requested = false;
    channel.subscribed = false;
    channel.confirmations_due = 0;
    // Messages lost with the connection are made up for when the new subscription is
    // confirmed: that moves the generation on. Only the waiters that asked to hear of the
    // loss wake now (a Redlock waiter may listen through another master instead); the rest
    // would only retry against a server that is likely down.
    channel.released.notify_all();
    call_all(channel.wakers);
    for (auto& [id, addressee] : channel.addressees) {
      addressee.named.notify_all();
      call_all(addressee.wakers);
    }
    it = channel.watchers == 0 ? channels_.erase(it) : std::next(it);
  }
}

bool ReleaseListener::pause(std::chrono::milliseconds duration) {
  pollfd stop{stop_.fd(), POLLIN, 0};
  const auto until = SteadyClock::now() + duration;
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - SteadyClock::now());
    if (left <= std::chrono::milliseconds::zero()) return true;
    if (poll(&stop, 1, static_cast<int>(left.count())) > 0) return false;
  }
}

}  // namespace distlock::detail::redis
