// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/master_locator.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

#include <distlock/log.h>

#include "backends/redis/transport/connection.h"
#include "backends/redis/transport/reconnect_delays.h"
#include "backends/redis/transport/reply.h"
#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/subscriber_connection.h"
#include "util/decimal.h"
#include "util/failure_message.h"

namespace distlock::detail::redis {
namespace {

constexpr std::string_view kSwitchChannel = "+switch-master";

ConnectionSettings settings_for_sentinels(const ConnectionSettings& settings) {
  ConnectionSettings sentinel = settings;
  sentinel.user.reset();
  sentinel.password.reset();
  sentinel.db = 0;
  return sentinel;
}

// "+switch-master <name> <old-ip> <old-port> <new-ip> <new-port>": the new address when the
// message is about `name`.
std::optional<Address> switched_to(std::string_view payload, std::string_view name) {
  std::istringstream words{std::string(payload)};
  std::string master, old_ip, old_port, new_ip, new_port;
  if (!(words >> master >> old_ip >> old_port >> new_ip >> new_port) || master != name)
    return std::nullopt;
  const auto port = parse_port(new_port);
  if (!port) return std::nullopt;
  return Address{new_ip, *port, {}};
}

}  // namespace

MasterLocator::MasterLocator(const ConnectionSettings& settings)
    : settings_(settings),
      sentinel_settings_(settings_for_sentinels(settings)),
      stop_(settings.server) {
  if (!settings_.sentinel()) {
    master_.address = settings_.address;
    return;
  }
  master_.address = ask_sentinels();
  watcher_ = std::thread([this] { watch_sentinels(); });
}

MasterLocator::~MasterLocator() {
  if (!watcher_.joinable()) return;
  stop_.signal();
  watcher_.join();
}

void MasterLocator::set_on_moved(std::function<void()> moved) {
  std::lock_guard lock(on_moved_mutex_);
  on_moved_ = std::move(moved);
}

MasterLocator::Master MasterLocator::current() const {
  std::lock_guard lock(mutex_);
  return master_;
}

std::uint64_t MasterLocator::generation() const {
  std::lock_guard lock(mutex_);
  return master_.generation;
}

bool MasterLocator::refresh(std::uint64_t seen, SteadyClock::time_point caller_deadline) {
  if (!settings_.sentinel()) return false;
  // Logged once the refresh is over: the logger is the service's code, and the other callers
  // of refresh wait for the refresh.
  std::string warning;
  {
    {
      std::unique_lock lock(refresh_mutex_);
      const auto free = [this] { return !refreshing_; };
      if (caller_deadline == kNoCallerDeadline)
        refresh_done_.wait(lock, free);
      else if (!refresh_done_.wait_until(lock, caller_deadline, free))
        return generation() != seen;
      refreshing_ = true;
    }
    struct RefreshOver {
      MasterLocator& locator;
      ~RefreshOver() {
        {
          const std::lock_guard lock(locator.refresh_mutex_);
          locator.refreshing_ = false;
        }
        locator.refresh_done_.notify_all();
      }
    } refresh_over{*this};
    if (generation() != seen) return true;
    try {
      warning = move_to(ask_sentinels(caller_deadline),
                        "named by the sentinels after the old one failed");
      sentinels_failing_ = false;
    } catch (const ServerError& error) {
      if (!sentinels_failing_.exchange(true))
        warning = failure_message(
            "", settings_.server,
            error.reason() + "; not logged again until the sentinels name a master");
    }
  }
  if (!warning.empty()) log(LogLevel::warning, warning);
  return generation() != seen;
}

Address MasterLocator::ask_sentinels(SteadyClock::time_point caller_deadline) const {
  std::string answers;
  const auto note = [&](const Address& sentinel, const std::string& answer) {
    answers += (answers.empty() ? "" : "; ") + ("sentinel " + sentinel.describe() + ": ") + answer;
  };
  for (const auto& sentinel : settings_.sentinels) {
    if (caller_wait_over(caller_deadline)) {
      note(sentinel, "not asked: the wait ended first");
      continue;
    }
    try {
      Connection connection(sentinel_settings_, sentinel, 0, caller_deadline);
      const auto sentinel_limit = connection.limit_to_caller(caller_deadline);
      const std::string_view ask[] = {"SENTINEL", "get-master-addr-by-name", settings_.master_name};
      const Reply named = connection.command(ask);
      if (named->type == REDIS_REPLY_NIL) {
        note(sentinel, "monitors no master named '" + settings_.master_name + "'");
        continue;
      }
      const auto port = named->type == REDIS_REPLY_ARRAY && named->elements == 2
                            ? parse_port(reply_text(*named->element[1]))
                            : std::nullopt;
      if (!port) {
        note(sentinel, "unexpected reply " + describe_reply(*named));
        continue;
      }
      Address master{std::string(reply_text(*named->element[0])), *port, {}};
      // A sentinel that has not yet heard of a failover names the old master.
      Connection candidate(settings_, master, 0, caller_deadline);
      const auto candidate_limit = candidate.limit_to_caller(caller_deadline);
      const std::string_view role[] = {"ROLE"};
      const Reply answer = candidate.command(role);
      const std::string_view kind = answer->type == REDIS_REPLY_ARRAY && answer->elements > 0
                                        ? reply_text(*answer->element[0])
                                        : reply_text(*answer);
      if (kind == "master") return master;
      note(sentinel, "names " + master.describe() + ", which answers ROLE with '" +
                         std::string(kind) + "', not 'master'");
    } catch (const ServerError& error) {
      note(sentinel, error.reason());
    }
  }
  throw ServerError(settings_.server, "no master named '" + settings_.master_name +
                                          "' found through the sentinels (" + answers + ")");
}

std::string MasterLocator::move_to(const Address& address, std::string_view how) {
  Address previous;
  {
    std::lock_guard lock(mutex_);
    if (master_.address == address) return {};
    previous = master_.address;
    master_.address = address;
    ++master_.generation;
  }
  sentinels_failing_ = false;
  {
    std::lock_guard lock(on_moved_mutex_);
    if (on_moved_) on_moved_();
  }
  return failure_message("", settings_.server,
                         "the master moved from " + previous.describe() + " to " +
                             address.describe() + " (" + std::string(how) + ")");
}

void MasterLocator::watch_sentinels() {
  auto retry_after = kFirstReconnectDelay;
  for (std::size_t next = 0;; ++next) {
    const Address& sentinel = settings_.sentinels[next % settings_.sentinels.size()];
    try {
      const auto connection = SubscriberConnection::open(sentinel_settings_, sentinel, stop_.fd());
      if (!connection || !follow(*connection)) return;
    } catch (const std::exception& error) {
      log(LogLevel::debug, failure_message("", settings_.server,
                                           "following sentinel " + sentinel.describe() +
                                               " failed: " + error.what()));
    }
    pollfd stop{stop_.fd(), POLLIN, 0};
    if (poll(&stop, 1, static_cast<int>(retry_after.count())) > 0) return;
    retry_after = std::min(retry_after * 2, kLongestReconnectDelay);
  }
}

bool MasterLocator::follow(SubscriberConnection& connection) {
  const std::string_view subscribe[] = {"SUBSCRIBE", kSwitchChannel};
  connection.send(subscribe);
  for (;;) {
    const short socket_events = POLLIN | (connection.has_output() ? POLLOUT : 0);
    pollfd fds[] = {{connection.fd(), socket_events, 0}, {stop_.fd(), POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      throw ServerError(settings_.server, "poll failed: " + reason_text(std::strerror(errno)));
    }
    if (fds[1].revents != 0) return false;
    if ((fds[0].revents & POLLOUT) != 0) connection.flush();
    if ((fds[0].revents & ~POLLOUT) == 0) continue;
    for (const auto& reply : connection.receive()) {
      if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 3 ||
          reply_text(*reply->element[0]) != "message")
        continue;
      const auto address = switched_to(reply_text(*reply->element[2]), settings_.master_name);
      if (!address) continue;
      const std::string warning = move_to(*address, "+switch-master from a sentinel");
      if (!warning.empty()) log(LogLevel::warning, warning);
    }
  }
}

}  // namespace distlock::detail::redis
