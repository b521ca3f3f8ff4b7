// SPDX-License-Identifier: Apache-2.0
// The bytes to and from one server over a connected socket (socket.h), in the clear or through
// TLS (tls_session.h). Its calls that wait do so by poll(), each until its own deadline, so
// that a blocked reader can be woken (shutdown()) and no socket option carries a timeout. The
// one place the connections read and write: the shared connection, the pooled ones and the
// subscriber's.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "backends/redis/transport/connection_settings.h"
#include "backends/redis/transport/socket.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

class TlsSession;

// What one read takes in at most: the replies of many lock commands, or many release messages;
// also the largest TLS record.
inline constexpr std::size_t kStreamReadSize = std::size_t{16} * 1024;

class Stream {
 public:
  // Connects to `address` by `deadline` and, for a rediss:// URL (settings.tls), makes the TLS
  // handshake by the same deadline. Nullopt with `failure` said when it cannot, or when
  // `stop_fd` (if not -1) becomes readable first (then `failure` is left empty).
  static std::optional<Stream> connect(const ConnectionSettings& settings, const Address& address,
                                       SteadyClock::time_point deadline, Socket::Failure& failure,
                                       int stop_fd = -1);

  Stream(Stream&&) noexcept = default;
  Stream& operator=(Stream&&) = delete;
  ~Stream();

  int fd() const { return socket_.fd(); }

  // Writes all of `bytes`, waiting for room until `deadline`. The errno that stopped it
  // (ETIMEDOUT at the deadline), if anything did.
  std::optional<int> write_all(std::string_view bytes, SteadyClock::time_point deadline);
  // Writes what the socket takes now: the count (maybe 0), or -1 with errno set.
  ssize_t write_now(std::string_view bytes);
  // Reads what has come, at least one byte, waiting until `deadline`: the count; 0 when the
  // server closed the connection; -1 with errno set (ETIMEDOUT at the deadline). Before its
  // thread sleeps, it looks again and again for up to twice the typical wait of the reads before
  // it, and at most ConnectionSettings::reply_spin, not at all once the typical wait is longer:
  // a reply that comes within a loopback round trip is then read without the thread sleeping
  // and being woken, which on a virtual machine costs more than the round trip itself. Not
  // with `may_look` false: where other threads wait for replies, the CPU is theirs.
  ssize_t read_some(char* into, std::size_t size, SteadyClock::time_point deadline,
                    bool may_look = true);
  // Reads what has come, without waiting: as read_some(), and -1 with EAGAIN when nothing has.
  ssize_t read_now(char* into, std::size_t size);
  // Whether bytes have come that a read would return but a poll() of fd() would not show:
  // TLS records read ahead of the last read's (never for a connection in the clear).
  bool holds_input() const;
  // Whether the server closed the connection; only for a connection that owes no reply, whose
  // socket has nothing else to read.
  bool peer_closed();
  // Ends both directions: a reader waiting in read_some() returns at once, with 0.
  void shutdown();
  // The errno a call above failed with, in words (EPROTO: what went wrong in TLS).
  std::string error_text(int error) const;
  // What the server's TLS said when it ended the connection (an alert that peer_closed() read),
  // in words; empty for a connection in the clear, or one the server simply closed.
  std::string tls_failure() const;

 private:
  struct TlsSessionFree {
    void operator()(TlsSession* session) const;
  };

  Stream(Socket socket, std::unique_ptr<TlsSession, TlsSessionFree> tls,
         std::chrono::microseconds spin_limit);
  // How long read_some() looks before it sleeps, and what it learns of each wait.
  SteadyClock::duration spin_span() const;
  void learn_wait(SteadyClock::duration waited);
  // As write_now() and read_now(), but -1 with EAGAIN when the call must wait, and
  // `wait_events` says for what (TLS may have to read to write, or write to read).
  ssize_t send_some(std::string_view bytes, short& wait_events);
  ssize_t receive_some(char* into, std::size_t size, short& wait_events);

  Socket socket_;
  std::unique_ptr<TlsSession, TlsSessionFree> tls_;  // none for redis://
  const std::chrono::microseconds spin_limit_;
  // How long read_some() waited for a reply lately (only the reads that did wait).
  SteadyClock::duration typical_wait_;
};

}  // namespace distlock::detail::redis
