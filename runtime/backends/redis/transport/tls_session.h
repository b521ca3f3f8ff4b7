// SPDX-License-Identifier: Apache-2.0
// One TLS session over a connected non-blocking socket: the handshake, by the connect
// deadline, then reads and writes that never block (Stream waits by poll()). OpenSSL's SSL
// object is not thread-safe, and on the shared connection one thread reads while others write,
// so every call into it holds the session's mutex; nobody holds it while waiting.
#pragma once

#include <openssl/ssl.h>
#include <sys/types.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "backends/redis/transport/socket.h"
#include "backends/redis/transport/tls_context.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

class TlsSession {
 public:
  // Makes the handshake over `fd` (connected to `host`) by `deadline`, verifying the server's
  // certificate as `context` says. Nullptr with `failure` saying why in words when it fails,
  // or when `stop_fd` (if not -1) becomes readable first (then `failure` is left empty).
  static std::unique_ptr<TlsSession> handshake(const TlsContext& context, int fd,
                                               const std::string& host,
                                               SteadyClock::time_point deadline,
                                               Socket::Failure& failure, int stop_fd = -1);
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;
  ~TlsSession();

  // As Stream's write_now() and read_now(): a count (a write may take 0 bytes); 0 from a read
  // when the server closed the connection; -1 with errno set, EAGAIN when it must wait, then
  // `wait_events` says for what (POLLIN or POLLOUT), EPROTO for a TLS failure (failure_text()).
  ssize_t write_now(std::string_view bytes, short& wait_events);
  ssize_t read_now(char* into, std::size_t size, short& wait_events);
  // Whether the session holds bytes read from the socket that no read has returned yet (read
  // ahead: a poll() of the socket would not wake for them).
  bool holds_input() const;
  // Whether the server closed the connection (or failed it, with a TLS alert), on a connection
  // that owes no reply. Reads what has come without waiting: TLS records that are no data
  // (a session ticket) are taken in on the way.
  bool peer_closed();
  // Why the last call that failed with EPROTO, or peer_closed(), failed, in words; empty when
  // none did.
  std::string failure_text() const;

 private:
  struct SslFree {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
  };

  TlsSession(SSL* ssl, int fd) : fd_(fd), ssl_(ssl) {}
  // The result of an SSL call that returned `result`, as read_now() returns it (holding
  // mutex_).
  ssize_t outcome_locked(int result, short& wait_events);
  // Why the connection failed with `ssl_error` (SSL_get_error) and `system_error` (holding
  // mutex_).
  std::string failure_locked(int ssl_error, int system_error) const;
  // Whether an alert waits to be read, which then says why (failure_): a server that ends the
  // connection right after the handshake (it refused the client's certificate) sends one, and
  // a write that meets the reset that follows has not read it (holding mutex_).
  bool read_alert_locked();

  // The socket, which the session's BIO reads and writes (BIO_get_data points here).
  int fd_;
  mutable std::mutex mutex_;
  std::unique_ptr<SSL, SslFree> ssl_;
  std::string name_;  // the name the server's certificate was checked against
  bool verifies_ = true;
  // The server asked for a client certificate and got none. In TLS 1.3 it says whether it
  // wanted one only after the handshake: an alert, or a closed connection, before any reply.
  bool certificate_withheld_ = false;
  bool received_ = false;  // under mutex_: anything came after the handshake
  std::string failure_;    // under mutex_
};

}  // namespace distlock::detail::redis
