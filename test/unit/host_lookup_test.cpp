// SPDX-License-Identifier: Apache-2.0
// A Redis server's host name looked up by the connection's deadline
// (runtime/backends/redis/transport/host_lookup.h). A resolver that does not answer cannot be
// made on demand (it is the system's, configured in /etc/resolv.conf), so the lookups that must
// outlast their deadline call one that stalls until the test lets it go; the others call the
// system's.
#include "backends/redis/transport/host_lookup.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "util/event_fd.h"

namespace distlock::detail::redis {
namespace {

using namespace std::chrono_literals;

// A resolver that answers only when let go, then as the system's does.
class StalledResolver {
 public:
  Resolver resolver() {
    return [state = state_](const char* host, const char* service, const addrinfo* hints,
                            addrinfo** found) {
      std::unique_lock lock(state->mutex);
      state->asked = true;
      state->changed.notify_all();
      state->changed.wait(lock, [&] { return state->let_go; });
      const int error = ::getaddrinfo(host, service, hints, found);
      state->answered = true;
      state->changed.notify_all();
      return error;
    };
  }
  // Lets the resolver answer and waits until it has: the lookup's thread ends with the test.
  ~StalledResolver() {
    std::unique_lock lock(state_->mutex);
    if (!state_->asked) return;
    state_->let_go = true;
    state_->changed.notify_all();
    state_->changed.wait(lock, [&] { return state_->answered; });
  }
  bool answered() const {
    const std::lock_guard lock(state_->mutex);
    return state_->answered;
  }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable changed;
    bool asked = false;
    bool let_go = false;
    bool answered = false;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

TEST(HostLookup, AnAddressLiteralIsReadWithoutALookup) {
  const Resolver never = [](const char*, const char*, const addrinfo*, addrinfo**) {
    ADD_FAILURE() << "an address literal was looked up";
    return EAI_FAIL;
  };
  for (const std::string host : {"127.0.0.1", "::1"}) {
    const HostLookup lookup = look_up(host, 6379, SteadyClock::now() + 1s, -1, never);
    ASSERT_EQ(lookup.outcome, HostLookup::Outcome::found) << host << ": " << lookup.failure;
    EXPECT_NE(lookup.addresses, nullptr) << host;
  }
}

TEST(HostLookup, ANameResolvesThroughTheSystemsResolver) {
  const HostLookup lookup = look_up("localhost", 6379, SteadyClock::now() + 10s);
  ASSERT_EQ(lookup.outcome, HostLookup::Outcome::found) << lookup.failure;
  ASSERT_NE(lookup.addresses, nullptr);
  EXPECT_EQ(lookup.addresses->ai_socktype, SOCK_STREAM);
}

TEST(HostLookup, AResolverThatDoesNotAnswerEndsTheLookupByItsDeadline) {
  StalledResolver stalled;
  const HostLookup lookup =
      look_up("redis.example", 6379, SteadyClock::now() + 200ms, -1, stalled.resolver());
  EXPECT_EQ(lookup.outcome, HostLookup::Outcome::timed_out);
  EXPECT_EQ(lookup.failure, "the name 'redis.example' did not resolve in time");
  EXPECT_FALSE(stalled.answered()) << "the lookup waited for the resolver";
}

TEST(HostLookup, AStopEndsTheLookupAtOnce) {
  StalledResolver stalled;
  EventFd stop("redis://redis.example");
  stop.signal();
  const HostLookup lookup =
      look_up("redis.example", 6379, SteadyClock::now() + 60s, stop.fd(), stalled.resolver());
  EXPECT_EQ(lookup.outcome, HostLookup::Outcome::stopped);
  EXPECT_FALSE(stalled.answered());
}

TEST(HostLookup, AResolversRefusalIsAFailureNamingTheHost) {
  const Resolver refusing = [](const char*, const char*, const addrinfo*, addrinfo**) {
    return EAI_NONAME;
  };
  const HostLookup lookup =
      look_up("no-such-host.example", 6379, SteadyClock::now() + 10s, -1, refusing);
  EXPECT_EQ(lookup.outcome, HostLookup::Outcome::failed);
  EXPECT_EQ(lookup.failure.rfind("the name 'no-such-host.example' does not resolve: ", 0), 0u)
      << lookup.failure;
}

}  // namespace
}  // namespace distlock::detail::redis
