// SPDX-License-Identifier: Apache-2.0
// The addresses a host name resolves to, looked up by a deadline. getaddrinfo has no timeout of
// its own: a resolver that does not answer holds it for resolv.conf's timeout times its attempts
// times its servers (5 s x 2 x up to 3 by default), past any connect_timeout or caller's
// deadline. So a name is looked up on a thread of its own, which the caller leaves at its
// deadline (or when `stop_fd` becomes readable); the thread ends with the lookup and frees what
// it found. An address literal is read on the caller's thread, without a lookup.
#pragma once

#include <netdb.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "util/steady_clock.h"

namespace distlock::detail::redis {

struct AddrInfoFree {
  void operator()(addrinfo* info) const { freeaddrinfo(info); }
};
using AddressList = std::unique_ptr<addrinfo, AddrInfoFree>;

struct HostLookup {
  enum class Outcome { found, failed, timed_out, stopped };
  Outcome outcome = Outcome::failed;
  AddressList addresses;  // when found
  std::string failure;    // when failed or timed out: why, in words
};

// getaddrinfo's signature: the resolver a lookup calls (tests give one that stalls).
using Resolver = std::function<int(const char* host, const char* service, const addrinfo* hints,
                                   addrinfo** found)>;

// The TCP addresses of `host` for `port`, by `deadline`.
HostLookup look_up(const std::string& host, std::uint16_t port, SteadyClock::time_point deadline,
                   int stop_fd = -1, const Resolver& resolver = ::getaddrinfo);

}  // namespace distlock::detail::redis
