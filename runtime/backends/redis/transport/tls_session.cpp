// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/tls_session.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "backends/redis/transport/server_error.h"
#include "backends/redis/transport/wait_for.h"

namespace distlock::detail::redis {
namespace {

int socket_of(BIO* bio) { return *static_cast<const int*>(BIO_get_data(bio)); }

constexpr std::string_view kCertificateWithheld =
    "the server asked for a client certificate, and the URL gives none (cert= and key=)";

// OpenSSL's own socket BIO writes with write(), which raises SIGPIPE in a process that has not
// ignored it when the server has gone; this one sends as Stream does, with MSG_NOSIGNAL.
int send_to_socket(BIO* bio, const char* bytes, int size) {
  BIO_clear_retry_flags(bio);
  ssize_t sent = 0;
  do {
    sent = ::send(socket_of(bio), bytes, static_cast<std::size_t>(size), MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_write(bio);
  return static_cast<int>(sent);
}

int receive_from_socket(BIO* bio, char* into, int size) {
  BIO_clear_retry_flags(bio);
  ssize_t got = 0;
  do {
    got = ::recv(socket_of(bio), into, static_cast<std::size_t>(size), 0);
  } while (got < 0 && errno == EINTR);
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_read(bio);
  return static_cast<int>(got);
}

// Nothing is buffered between OpenSSL and the socket: a flush is done as soon as asked.
long control_socket(BIO* /*bio*/, int command, long /*number*/, void* /*pointer*/) {
  return command == BIO_CTRL_FLUSH ? 1 : 0;
}

struct BioMethodFree {
  void operator()(BIO_METHOD* method) const { BIO_meth_free(method); }
};

const BIO_METHOD* socket_method() {
  static const std::unique_ptr<BIO_METHOD, BioMethodFree> method = [] {
    std::unique_ptr<BIO_METHOD, BioMethodFree> made(
        BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "distlock socket"));
    if (made) {
      BIO_meth_set_write(made.get(), send_to_socket);
      BIO_meth_set_read(made.get(), receive_from_socket);
      BIO_meth_set_ctrl(made.get(), control_socket);
    }
    return made;
  }();
  return method.get();
}

bool is_ip_address(const std::string& host) {
  in6_addr address{};
  return inet_pton(AF_INET, host.c_str(), &address) == 1 ||
         inet_pton(AF_INET6, host.c_str(), &address) == 1;
}

std::string verify_failure_text(long result, const std::string& name) {
  const std::string what = X509_verify_cert_error_string(result);
  switch (result) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
      return "certificate verify failed: " + what +
             " (unknown CA: the server's certificate is signed by no CA of cacert=/cacertdir=, "
             "or of the system's store when neither is given)";
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      return "certificate verify failed: host name mismatch (the server's certificate is not "
             "for " +
             name + "; sni= names the server it is for)";
    default:
      return "certificate verify failed: " + what;
  }
}

// Why an SSL call failed with `ssl_error` (SSL_get_error), in words; `system_error` is the
// errno it left.
std::string failure_text_of(const SSL* ssl, int ssl_error, int system_error,
                            const std::string& name, bool verifies) {
  // Without verification (insecure=true) the result is kept, but failed nothing.
  if (const long verified = SSL_get_verify_result(ssl); verifies && verified != X509_V_OK)
    return verify_failure_text(verified, name);
  if (ssl_error == SSL_ERROR_ZERO_RETURN || (ssl_error == SSL_ERROR_SYSCALL && system_error == 0))
    return "the server closed the connection";
  if (ssl_error == SSL_ERROR_SYSCALL) return reason_text(std::strerror(system_error));
  const unsigned long error = ERR_peek_last_error();
  const char* openssl_text = ERR_reason_error_string(error);
  const std::string detail = openssl_text == nullptr ? "unknown TLS failure" : openssl_text;
  if (ERR_GET_LIB(error) == ERR_LIB_SSL) {
    switch (ERR_GET_REASON(error)) {
      case SSL_R_WRONG_VERSION_NUMBER:
      case SSL_R_PACKET_LENGTH_TOO_LONG:
      case SSL_R_UNKNOWN_PROTOCOL:
      case SSL_R_RECORD_LENGTH_MISMATCH:
        return "the server does not speak TLS on this port (" + detail + "): use redis://";
      case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
        return std::string(kCertificateWithheld);
      case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
        return "the server refused the handshake (" + detail +
               "): it may ask for a client certificate (cert= and key=), or share no protocol "
               "version or cipher";
      case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
      case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
      case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED:
      case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
        return "the server refused the client certificate (" + detail + ")";
      default:
        break;
    }
  }
  return reason_text(detail.c_str());
}

}  // namespace

std::unique_ptr<TlsSession> TlsSession::handshake(const TlsContext& context, int fd,
                                                  const std::string& host,
                                                  SteadyClock::time_point deadline,
                                                  Socket::Failure& failure, int stop_fd) {
  failure = {};
  ERR_clear_error();
  std::unique_ptr<TlsSession> session(new TlsSession(SSL_new(context.native()), fd));
  SSL* ssl = session->ssl_.get();
  BIO* bio = socket_method() == nullptr ? nullptr : BIO_new(socket_method());
  if (ssl == nullptr || bio == nullptr) {
    BIO_free(bio);
    failure = {"cannot start TLS: out of memory", false};
    return nullptr;
  }
  BIO_set_data(bio, &session->fd_);
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl, bio, bio);

  session->name_ = context.server_name().value_or(host);
  session->verifies_ = context.verifies();
  const std::string& name = session->name_;
  const bool ip_address = is_ip_address(name);
  // A server name in the handshake lets one address serve several names; an IP address may
  // not be sent as one (RFC 6066).
  if (!ip_address) SSL_set_tlsext_host_name(ssl, name.c_str());
  if (context.verifies()) {
    X509_VERIFY_PARAM* verify = SSL_get0_param(ssl);
    X509_VERIFY_PARAM_set_hostflags(verify, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    const int named = ip_address ? X509_VERIFY_PARAM_set1_ip_asc(verify, name.c_str())
                                 : X509_VERIFY_PARAM_set1_host(verify, name.c_str(), 0);
    if (named != 1) {
      failure = {"cannot check the server's certificate against '" + name + "'", false};
      return nullptr;
    }
  }
  SSL_set_app_data(ssl, &session->certificate_withheld_);
  SSL_set_connect_state(ssl);

  for (;;) {
    ERR_clear_error();
    errno = 0;
    const int result = SSL_connect(ssl);
    const int system_error = errno;
    if (result == 1) return session;
    const int error = SSL_get_error(ssl, result);
    short events = 0;
    if (error == SSL_ERROR_WANT_READ) events = POLLIN;
    if (error == SSL_ERROR_WANT_WRITE) events = POLLOUT;
    if (events == 0) {
      failure = {
          "TLS handshake: " + failure_text_of(ssl, error, system_error, name, context.verifies()),
          false};
      return nullptr;
    }
    switch (wait_for(fd, events, deadline, stop_fd)) {
      case Waited::ready:
        break;
      case Waited::stopped:
        return nullptr;
      case Waited::timed_out:
        failure = {"no TLS handshake in time (does the server speak TLS on this port?)", true};
        return nullptr;
    }
  }
}

TlsSession::~TlsSession() = default;

ssize_t TlsSession::write_now(std::string_view bytes, short& wait_events) {
  if (bytes.empty()) return 0;
  const std::lock_guard lock(mutex_);
  ERR_clear_error();
  errno = 0;
  std::size_t written = 0;
  const int result = SSL_write_ex(ssl_.get(), bytes.data(), bytes.size(), &written);
  if (result == 1) return static_cast<ssize_t>(written);
  const int system_error = errno;
  if (!received_ && (system_error == EPIPE || system_error == ECONNRESET) &&
      SSL_get_error(ssl_.get(), result) == SSL_ERROR_SYSCALL && read_alert_locked()) {
    errno = EPROTO;
    return -1;
  }
  errno = system_error;
  return outcome_locked(result, wait_events);
}

bool TlsSession::read_alert_locked() {
  ERR_clear_error();
  char byte = 0;
  std::size_t got = 0;
  const int result = SSL_peek_ex(ssl_.get(), &byte, 1, &got);
  if (result == 1 || SSL_get_error(ssl_.get(), result) != SSL_ERROR_SSL) return false;
  failure_ = failure_locked(SSL_ERROR_SSL, 0);
  return true;
}

ssize_t TlsSession::read_now(char* into, std::size_t size, short& wait_events) {
  const std::lock_guard lock(mutex_);
  ERR_clear_error();
  errno = 0;
  std::size_t got = 0;
  const int result = SSL_read_ex(ssl_.get(), into, size, &got);
  if (result != 1) return outcome_locked(result, wait_events);
  received_ = true;
  // A read returns one record's data; the records read ahead with it are taken too, while
  // there is room, so that the caller's next poll() finds the socket empty.
  while (got < size && SSL_has_pending(ssl_.get()) == 1) {
    std::size_t more = 0;
    if (SSL_read_ex(ssl_.get(), into + got, size - got, &more) != 1) {
      // Part of a record has come, or an alert that the next read reports.
      ERR_clear_error();
      break;
    }
    got += more;
  }
  return static_cast<ssize_t>(got);
}

bool TlsSession::holds_input() const {
  const std::lock_guard lock(mutex_);
  return SSL_has_pending(ssl_.get()) == 1;
}

ssize_t TlsSession::outcome_locked(int result, short& wait_events) {
  const int system_error = errno;
  switch (const int error = SSL_get_error(ssl_.get(), result)) {
    case SSL_ERROR_WANT_READ:
      wait_events = POLLIN;
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_WANT_WRITE:
      wait_events = POLLOUT;
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_ZERO_RETURN:
    case SSL_ERROR_SYSCALL:
      if (!certificate_withheld_ || received_) {
        if (error == SSL_ERROR_ZERO_RETURN || system_error == 0) return 0;
        errno = system_error;
        return -1;
      }
      [[fallthrough]];
    default:
      failure_ = failure_locked(error, system_error);
      errno = EPROTO;
      return -1;
  }
}

std::string TlsSession::failure_locked(int ssl_error, int system_error) const {
  if (certificate_withheld_ && !received_) return std::string(kCertificateWithheld);
  return failure_text_of(ssl_.get(), ssl_error, system_error, name_, verifies_);
}

bool TlsSession::peer_closed() {
  const std::lock_guard lock(mutex_);
  ERR_clear_error();
  errno = 0;
  char byte = 0;
  std::size_t got = 0;
  const int result = SSL_peek_ex(ssl_.get(), &byte, 1, &got);
  if (result == 1) return false;
  const int system_error = errno;
  const int error = SSL_get_error(ssl_.get(), result);
  if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) return false;
  // A connection simply closed is told as such by the caller; an alert is told here.
  if (error == SSL_ERROR_SSL || (certificate_withheld_ && !received_))
    failure_ = failure_locked(error, system_error);
  return true;
}

std::string TlsSession::failure_text() const {
  const std::lock_guard lock(mutex_);
  return failure_;
}

}  // namespace distlock::detail::redis
