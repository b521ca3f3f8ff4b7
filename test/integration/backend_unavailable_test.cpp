// SPDX-License-Identifier: Apache-2.0
// An unreachable or mute Redis server is reported as BackendUnavailable, naming the server,
// within the configured timeouts.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "integration_helpers.h"
#include "redis_server.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// A TCP listener on a loopback port that accepts connections and never says a word.
class SilentListener {
 public:
  SilentListener() {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener_ < 0) throw std::system_error(errno, std::generic_category(), "socket");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_, 16) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      const int error = errno;
      ::close(listener_);
      throw std::system_error(error, std::generic_category(), "listen on 127.0.0.1");
    }
    port_ = ntohs(address.sin_port);
    if (::pipe2(wake_, O_CLOEXEC) != 0) {
      const int error = errno;
      ::close(listener_);
      throw std::system_error(error, std::generic_category(), "pipe2");
    }
    thread_ = std::thread([this] { run(); });
  }

  ~SilentListener() {
    const char byte = 0;
    [[maybe_unused]] auto ignored = ::write(wake_[1], &byte, 1);
    thread_.join();
    for (int fd : accepted_fds_) ::close(fd);
    ::close(listener_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }

  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;

  std::uint16_t port() const { return port_; }
  int accepted() const { return accepted_.load(); }

 private:
  void run() {
    for (;;) {
      pollfd fds[2] = {{listener_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      if (fds[0].revents != 0) {
        const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
          accepted_fds_.push_back(fd);  // kept open, never read, never written
          ++accepted_;
        }
      }
    }
  }

  int listener_ = -1;
  int wake_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  std::thread thread_;
  std::vector<int> accepted_fds_;  // touched by the thread only, until it is joined
  std::atomic<int> accepted_{0};
};

// A listener whose accept queue is full: the kernel drops further SYNs, so a connect to it
// neither succeeds nor fails until the client gives up.
class FullBacklogListener {
 public:
  FullBacklogListener() {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener_ < 0) throw std::system_error(errno, std::generic_category(), "socket");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_, 0) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      const int error = errno;
      ::close(listener_);
      throw std::system_error(error, std::generic_category(), "listen on 127.0.0.1");
    }
    port_ = ntohs(address.sin_port);
    // Never accepted: fill the queue until a connect stays pending.
    for (int i = 0; i < 16; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (fd < 0) throw std::system_error(errno, std::generic_category(), "socket");
      fillers_.push_back(fd);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) continue;
      if (errno != EINPROGRESS) throw std::system_error(errno, std::generic_category(), "connect");
      pollfd pending{fd, POLLOUT, 0};
      if (::poll(&pending, 1, 200) == 0) return;  // this one hangs: the queue is full
    }
    throw std::runtime_error("the accept queue of a backlog-0 listener never filled");
  }
  ~FullBacklogListener() {
    for (int fd : fillers_) ::close(fd);
    ::close(listener_);
  }
  FullBacklogListener(const FullBacklogListener&) = delete;
  FullBacklogListener& operator=(const FullBacklogListener&) = delete;

  std::uint16_t port() const { return port_; }

 private:
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::vector<int> fillers_;
};

// Bounds on how long a failure takes. The configured timeouts are short and the defaults
// (3 s) long: a client that ignored the configured one would take at least the default,
// above kWithinTimeout; one that did not wait at all would fail faster than kTimeout.
constexpr auto kTimeout = 300ms;
constexpr auto kWithinTimeout = 2500ms;

TEST(BackendUnavailable, TheBoundsSitBelowTheDefaultTimeouts) {
  EXPECT_LT(kWithinTimeout, Options{}.connect_timeout);
  EXPECT_LT(kWithinTimeout, Options{}.command_timeout);
}

TEST(BackendUnavailable, NobodyListening) {
  const std::uint16_t port = free_loopback_port();
  const std::string server = "127.0.0.1:" + std::to_string(port);
  const auto start = Clock::now();
  try {
    Client::connect("redis://" + server + "?connect_timeout=300ms");
    FAIL() << "connected to a port nobody listens on";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find(server), std::string::npos) << e.what();
    EXPECT_NE(e.server().find(server), std::string::npos) << e.server();
  }
  // Refused at once: no timeout to wait for.
  EXPECT_LT(Clock::now() - start, kWithinTimeout);
}

TEST(BackendUnavailable, ConnectThatNeverCompletesGivesUpAtConnectTimeout) {
  FullBacklogListener listener;
  const std::string server = "127.0.0.1:" + std::to_string(listener.port());
  const auto start = Clock::now();
  try {
    Client::connect("redis://" + server + "?connect_timeout=300ms");
    FAIL() << "connect() succeeded against a listener that never accepts";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find(server), std::string::npos) << e.what();
  }
  const auto elapsed = Clock::now() - start;
  EXPECT_GE(elapsed, kTimeout - 50ms);
  EXPECT_LT(elapsed, kWithinTimeout) << "connect_timeout=300ms was not applied";
}

TEST(BackendUnavailable, ServerThatNeverAnswersGivesUpAtCommandTimeout) {
  SilentListener listener;
  const std::string server = "127.0.0.1:" + std::to_string(listener.port());
  const auto start = Clock::now();
  try {
    Client::connect("redis://" + server + "?connect_timeout=300ms&command_timeout=300ms");
    FAIL() << "connect() succeeded against a server that never answers";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find(server), std::string::npos) << e.what();
    EXPECT_NE(e.server().find(server), std::string::npos) << e.server();
  }
  const auto elapsed = Clock::now() - start;
  EXPECT_GE(elapsed, kTimeout - 50ms);
  EXPECT_LT(elapsed, kWithinTimeout) << "the 300 ms timeouts were not applied";
  // And that the client did get through to the listener (the failure was its silence).
  EXPECT_TRUE(eventually([&] { return listener.accepted() >= 1; }));
}

// A server that stops answering on an open connection: the next command gives up at
// command_timeout, and the client works again once the server does.
TEST(BackendUnavailable, StoppedServerGivesUpAtCommandTimeoutAndRecovers) {
  RedisServer server;
  auto client = Client::connect(server.url() + "?command_timeout=300ms&max_connections=1");
  const auto lock = spec("stopped", 5s, wait(1s));
  client->acquire(lock, key_of(1)).release();

  ASSERT_EQ(::kill(server.pid(), SIGSTOP), 0);
  const auto start = Clock::now();
  try {
    client->acquire(lock, key_of(2));
    ADD_FAILURE() << "acquired from a stopped server";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("stopped:2"), std::string::npos) << e.what();
    EXPECT_NE(e.server().find(std::to_string(server.port())), std::string::npos) << e.server();
  }
  const auto elapsed = Clock::now() - start;
  ASSERT_EQ(::kill(server.pid(), SIGCONT), 0);
  EXPECT_GE(elapsed, kTimeout - 50ms);
  EXPECT_LT(elapsed, kWithinTimeout) << "command_timeout=300ms was not applied";

  Lease lease = client->acquire(lock, key_of(3));
  EXPECT_TRUE(lease.valid());
}

}  // namespace
}  // namespace distlock::testing
