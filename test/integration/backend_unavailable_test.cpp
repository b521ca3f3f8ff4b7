// An unreachable or mute Redis server is reported as BackendUnavailable, naming the server,
// within the configured timeouts.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
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

TEST(BackendUnavailable, NobodyListening) {
  const std::uint16_t port = free_loopback_port();
  const std::string server = "127.0.0.1:" + std::to_string(port);
  const auto start = Clock::now();
  try {
    Client::connect("redis://" + server + "?connect_timeout=500ms");
    FAIL() << "connected to a port nobody listens on";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find(server), std::string::npos) << e.what();
    EXPECT_NE(e.server().find(server), std::string::npos) << e.server();
  }
  EXPECT_LT(Clock::now() - start, 10s);
}

TEST(BackendUnavailable, ServerThatNeverAnswers) {
  SilentListener listener;
  const std::string server = "127.0.0.1:" + std::to_string(listener.port());
  const auto start = Clock::now();
  try {
    Client::connect("redis://" + server + "?connect_timeout=500ms&command_timeout=500ms");
    FAIL() << "connect() succeeded against a server that never answers";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find(server), std::string::npos) << e.what();
    EXPECT_NE(e.server().find(server), std::string::npos) << e.server();
  }
  // Proves no hang: the timeouts are 500 ms each.
  EXPECT_LT(Clock::now() - start, 10s);
  // And that the client did get through to the listener (the failure was its silence).
  EXPECT_TRUE(eventually([&] { return listener.accepted() >= 1; }));
}

}  // namespace
}  // namespace distlock::testing
