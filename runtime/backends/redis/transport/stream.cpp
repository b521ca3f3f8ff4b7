// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/stream.h"

#include <poll.h>
#include <sched.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/wait_for.h"
#if DISTLOCK_WITH_TLS
#include "backends/redis/transport/tls_session.h"
#endif

namespace distlock::detail::redis {

// The runtime built without TLS refuses rediss:// before it connects (url_schemes.cpp), so it
// never makes a session, and has none to free.
void Stream::TlsSessionFree::operator()([[maybe_unused]] TlsSession* session) const {
#if DISTLOCK_WITH_TLS
  delete session;
#endif
}

Stream::Stream(Socket socket, std::unique_ptr<TlsSession, TlsSessionFree> tls,
               std::chrono::microseconds spin_limit)
    : socket_(std::move(socket)),
      tls_(std::move(tls)),
      spin_limit_(spin_limit),
      typical_wait_(spin_limit / 2) {}

Stream::~Stream() = default;

std::optional<Stream> Stream::connect(const ConnectionSettings& settings, const Address& address,
                                      SteadyClock::time_point deadline, Socket::Failure& failure,
                                      int stop_fd) {
  std::optional<Socket> socket = Socket::connect(address, deadline, failure, stop_fd);
  if (!socket) return std::nullopt;
  std::unique_ptr<TlsSession, TlsSessionFree> tls;
#if DISTLOCK_WITH_TLS
  if (settings.tls) {
    tls.reset(
        TlsSession::handshake(*settings.tls, socket->fd(), address.host, deadline, failure, stop_fd)
            .release());
    if (!tls) return std::nullopt;
  }
#else
  (void)settings;
#endif
  return Stream(std::move(*socket), std::move(tls), settings.reply_spin);
}

std::optional<int> Stream::write_all(std::string_view bytes, SteadyClock::time_point deadline) {
  while (!bytes.empty()) {
    short wait_events = POLLOUT;
    const ssize_t written = send_some(bytes, wait_events);
    if (written < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return errno;
    if (written > 0) bytes.remove_prefix(static_cast<std::size_t>(written));
    if (bytes.empty()) break;
    if (wait_for(fd(), wait_events, deadline) == Waited::timed_out) return ETIMEDOUT;
  }
  return std::nullopt;
}

ssize_t Stream::write_now(std::string_view bytes) {
  short wait_events = POLLOUT;
  const ssize_t written = send_some(bytes, wait_events);
  if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
  return written;
}

ssize_t Stream::send_some(std::string_view bytes, short& wait_events) {
#if DISTLOCK_WITH_TLS
  if (tls_) return tls_->write_now(bytes, wait_events);
#endif
  wait_events = POLLOUT;
  for (;;) {
    const ssize_t written = ::send(fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (written >= 0 || errno != EINTR) return written;
  }
}

ssize_t Stream::read_some(char* into, std::size_t size, SteadyClock::time_point deadline,
                          bool may_look) {
  // Set at the first read that finds nothing: only waits teach read_some how long replies take.
  std::optional<SteadyClock::time_point> started;
  SteadyClock::time_point look_until;
  for (;;) {
    short wait_events = POLLIN;
    const ssize_t got = receive_some(into, size, wait_events);
    if (got >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
      if (started) learn_wait(SteadyClock::now() - *started);
      return got;
    }
    const auto now = SteadyClock::now();
    if (!started) {
      started = now;
      look_until = may_look ? now + spin_span() : now;
    }
    if (now < look_until) {
      // A thread of the process that has work runs first: looking must not keep it waiting.
      sched_yield();
      continue;
    }
    if (wait_for(fd(), wait_events, deadline) == Waited::timed_out) {
      errno = ETIMEDOUT;
      return -1;
    }
  }
}

SteadyClock::duration Stream::spin_span() const {
  if (typical_wait_ > spin_limit_) return SteadyClock::duration::zero();
  return std::min<SteadyClock::duration>(spin_limit_, 2 * typical_wait_);
}

void Stream::learn_wait(SteadyClock::duration waited) {
  // A moving average over about the last eight waits: one slow reply does not stop the looking.
  typical_wait_ += (waited - typical_wait_) / 8;
}

ssize_t Stream::read_now(char* into, std::size_t size) {
  short wait_events = POLLIN;
  return receive_some(into, size, wait_events);
}

ssize_t Stream::receive_some(char* into, std::size_t size, short& wait_events) {
#if DISTLOCK_WITH_TLS
  if (tls_) return tls_->read_now(into, size, wait_events);
#endif
  wait_events = POLLIN;
  for (;;) {
    const ssize_t got = ::recv(fd(), into, size, 0);
    if (got >= 0 || errno != EINTR) return got;
  }
}

bool Stream::holds_input() const {
#if DISTLOCK_WITH_TLS
  if (tls_) return tls_->holds_input();
#endif
  return false;
}

bool Stream::peer_closed() {
#if DISTLOCK_WITH_TLS
  if (tls_) return tls_->peer_closed();
#endif
  char byte = 0;
  ssize_t got = 0;
  do {
    got = ::recv(fd(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  } while (got < 0 && errno == EINTR);
  // 0: the peer's FIN came; an error other than "nothing to read yet": a reset.
  return got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

void Stream::shutdown() { ::shutdown(fd(), SHUT_RDWR); }

std::string Stream::error_text(int error) const {
#if DISTLOCK_WITH_TLS
  if (tls_ && error == EPROTO) return tls_->failure_text();
#endif
  return reason_text(std::strerror(error));
}

std::string Stream::tls_failure() const {
#if DISTLOCK_WITH_TLS
  if (tls_) return tls_->failure_text();
#endif
  return {};
}

}  // namespace distlock::detail::redis
