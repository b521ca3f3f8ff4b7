// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/host_lookup.h"

#include <poll.h>

#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/wait_for.h"
#include "util/event_fd.h"

namespace distlock::detail::redis {
namespace {

addrinfo tcp_hints(int flags) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = flags;
  return hints;
}

// What the lookup's thread and its caller share: the caller may leave before the thread ends.
struct PendingLookup {
  explicit PendingLookup(const std::string& host) : finished(host) {}
  EventFd finished;
  std::mutex mutex;
  int error = 0;          // under mutex
  AddressList addresses;  // under mutex
};

}  // namespace

HostLookup look_up(const std::string& host, std::uint16_t port, SteadyClock::time_point deadline,
                   int stop_fd, const Resolver& resolver) {
  HostLookup result;
  const std::string service = std::to_string(port);
  const addrinfo numeric = tcp_hints(AI_NUMERICHOST | AI_NUMERICSERV);
  addrinfo* found = nullptr;
  const int literal = ::getaddrinfo(host.c_str(), service.c_str(), &numeric, &found);
  if (literal == 0) {
    result.outcome = HostLookup::Outcome::found;
    result.addresses.reset(found);
    return result;
  }
  if (literal != EAI_NONAME) {
    result.failure = "'" + host + "' is not an address: " + reason_text(gai_strerror(literal));
    return result;
  }

  const auto pending = std::make_shared<PendingLookup>(host);
  try {
    std::thread([pending, resolver, host, service] {
      const addrinfo hints = tcp_hints(AI_NUMERICSERV);
      addrinfo* resolved = nullptr;
      const int error = resolver(host.c_str(), service.c_str(), &hints, &resolved);
      {
        const std::lock_guard lock(pending->mutex);
        pending->error = error;
        pending->addresses.reset(error == 0 ? resolved : nullptr);
      }
      pending->finished.signal();
    }).detach();
  } catch (const std::system_error& error) {
    result.failure = "cannot look up '" + host + "': no thread to look it up on (" +
                     reason_text(error.what()) + ")";
    return result;
  }
  switch (wait_for(pending->finished.fd(), POLLIN, deadline, stop_fd)) {
    case Waited::stopped:
      result.outcome = HostLookup::Outcome::stopped;
      return result;
    case Waited::timed_out:
      result.outcome = HostLookup::Outcome::timed_out;
      result.failure = "the name '" + host + "' did not resolve in time";
      return result;
    case Waited::ready:
      break;
  }
  const std::lock_guard lock(pending->mutex);
  if (pending->error != 0) {
    result.failure =
        "the name '" + host + "' does not resolve: " + reason_text(gai_strerror(pending->error));
    return result;
  }
  result.outcome = HostLookup::Outcome::found;
  result.addresses = std::move(pending->addresses);
  return result;
}

}  // namespace distlock::detail::redis
