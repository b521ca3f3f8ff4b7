// SPDX-License-Identifier: Apache-2.0
// The TLS settings of a rediss:// URL, made once into an OpenSSL context that every connection
// of the backend starts its sessions from (tls_session.h). The query keys are redis-cli's
// option names: cacert, cacertdir, cert, key, sni, insecure.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <optional>
#include <string>

#include "util/url.h"

namespace distlock::detail::redis {

// A session started from the context points its SSL's app data (SSL_set_app_data) at a bool,
// which becomes true when the server asks for a client certificate the URL does not give.
class TlsContext {
 public:
  // Reads the TLS keys of `url` and the files they name. Throws ConfigError naming the file
  // and the URL (without its password) for a file that cannot be read, a key that does not
  // match its certificate, or a key without a certificate.
  explicit TlsContext(const Url& url);

  SSL_CTX* native() const { return context_.get(); }
  // The name the server's certificate must carry and the handshake asks for (SNI), when it is
  // not the host the URL connects to: sni=.
  const std::optional<std::string>& server_name() const { return server_name_; }
  // Whether the server's certificate is checked (all but insecure=true).
  bool verifies() const { return verifies_; }

 private:
  struct ContextFree {
    void operator()(SSL_CTX* context) const { SSL_CTX_free(context); }
  };

  std::unique_ptr<SSL_CTX, ContextFree> context_;
  std::optional<std::string> server_name_;
  bool verifies_ = true;
};

}  // namespace distlock::detail::redis
