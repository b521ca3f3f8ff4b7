// SPDX-License-Identifier: Apache-2.0
#include "backends/redis/transport/tls_context.h"

#include <openssl/err.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <distlock/error.h>

#include "backends/redis/transport/server_error.h"
#include "backends/url_schemes.h"

namespace distlock::detail::redis {
namespace {

[[noreturn]] void bad_tls_setting(const Url& url, const std::string& why) {
  throw ConfigError("", url.redacted(), "TLS: " + why);
}

// OpenSSL's reason for the last failure on this thread, in words, and its queue emptied.
std::string openssl_reason() {
  const unsigned long error = ERR_peek_last_error();
  ERR_clear_error();
  const char* reason = error == 0 ? nullptr : ERR_reason_error_string(error);
  return reason == nullptr ? std::string("unknown error") : reason_text(reason);
}

// The path a query key names; a file that cannot be opened is named with the reason.
std::optional<std::string> readable_file(const Url& url, std::string_view key) {
  std::optional<std::string> path = url.query_value(key);
  if (!path) return path;
  if (path->empty()) bad_tls_setting(url, std::string(key) + "= names no file");
  std::error_code error;
  if (std::filesystem::is_directory(*path, error))
    bad_tls_setting(url, "cannot read " + std::string(key) + " '" + *path + "': it is a directory");
  if (!std::ifstream(*path))
    bad_tls_setting(url, "cannot read " + std::string(key) + " '" + *path +
                             "': " + reason_text(std::strerror(errno)));
  return path;
}

// An encrypted key would make OpenSSL ask for its passphrase on the terminal.
int refuse_passphrase(char* /*buffer*/, int /*size*/, int /*rwflag*/, void* /*user*/) { return 0; }

// Called by OpenSSL when the server asks for a client certificate and the context has none:
// noted where the session's app data points, and the handshake goes on without one (the server
// may take none).
int note_certificate_withheld(SSL* ssl, X509** /*certificate*/, EVP_PKEY** /*key*/) {
  if (auto* withheld = static_cast<bool*>(SSL_get_app_data(ssl))) *withheld = true;
  return 0;
}

}  // namespace

TlsContext::TlsContext(const Url& url) : context_(SSL_CTX_new(TLS_client_method())) {
  if (!context_) bad_tls_setting(url, "cannot make a TLS context: " + openssl_reason());
  SSL_CTX* context = context_.get();
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  // A connection ending without close_notify reads as closed, as a plain one does (RESP knows
  // where each reply ends, so nothing is cut off unnoticed), and the server may not start a
  // renegotiation, which would make a write wait for a read that another thread does on the
  // shared connection.
  SSL_CTX_set_options(context, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
  // A write that the socket takes in part returns the count, as send() does; a write retried
  // after WANT_WRITE may come from another buffer holding the same bytes (the subscriber's
  // output, grown meanwhile).
  SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // A read takes in what the socket has, not a record's header and then its body: one recv()
  // per reply rather than two. What it reads ahead of the record it returns stays in the
  // session, where a poll() of the socket does not see it (Stream::holds_input()).
  SSL_CTX_set_read_ahead(context, 1);
  SSL_CTX_set_default_passwd_cb(context, refuse_passphrase);
  SSL_CTX_set_client_cert_cb(context, note_certificate_withheld);

  verifies_ = !tls_insecure(url);
  if (const auto sni = url.query_value("sni")) {
    if (sni->empty()) bad_tls_setting(url, "sni= names no server");
    server_name_ = *sni;
  }

  const std::optional<std::string> ca_file = readable_file(url, "cacert");
  std::optional<std::string> ca_directory = url.query_value("cacertdir");
  if (ca_directory) {
    std::error_code error;
    if (!std::filesystem::is_directory(*ca_directory, error))
      bad_tls_setting(url, "cacertdir '" + *ca_directory + "' is not a directory");
  }
  if (ca_file || ca_directory) {
    if (SSL_CTX_load_verify_locations(context, ca_file ? ca_file->c_str() : nullptr,
                                      ca_directory ? ca_directory->c_str() : nullptr) != 1)
      bad_tls_setting(
          url, "cannot load the CA certificates of " +
                   (ca_file ? "cacert '" + *ca_file + "'" : "cacertdir '" + *ca_directory + "'") +
                   ": " + openssl_reason());
  } else if (SSL_CTX_set_default_verify_paths(context) != 1) {
    bad_tls_setting(url, "cannot load the system's CA certificates: " + openssl_reason());
  }
  SSL_CTX_set_verify(context, verifies_ ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);

  const std::optional<std::string> certificate = readable_file(url, "cert");
  const std::optional<std::string> key = readable_file(url, "key");
  if (certificate.has_value() != key.has_value())
    bad_tls_setting(url, certificate ? "cert= without key=: a client certificate needs its key"
                                     : "key= without cert=: a client key needs its certificate");
  if (!certificate) return;
  if (SSL_CTX_use_certificate_chain_file(context, certificate->c_str()) != 1)
    bad_tls_setting(url, "cannot load cert '" + *certificate + "': " + openssl_reason());
  const std::string mismatch = "key '" + *key + "' does not match cert '" + *certificate + "'";
  if (SSL_CTX_use_PrivateKey_file(context, key->c_str(), SSL_FILETYPE_PEM) != 1) {
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH)
      bad_tls_setting(url, mismatch);
    bad_tls_setting(url, "cannot load key '" + *key + "': " + openssl_reason() +
                             " (a key must be PEM, not encrypted)");
  }
  if (SSL_CTX_check_private_key(context) != 1) bad_tls_setting(url, mismatch);
}

}  // namespace distlock::detail::redis
