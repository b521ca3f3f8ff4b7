// SPDX-License-Identifier: Apache-2.0
// Certificates for the TLS tests, made with the openssl program once per test process in a
// temporary directory (removed at exit): a CA, a server certificate it signed for 127.0.0.1
// and localhost, a client certificate it signed, and what the failures need: a second CA, an
// expired server certificate and one for another host name.
#pragma once

#include <filesystem>

namespace distlock::testing {

struct TlsFiles {
  struct Pair {
    std::filesystem::path certificate;
    std::filesystem::path key;
  };

  std::filesystem::path directory;
  std::filesystem::path ca;        // the CA's certificate, which signed the pairs below
  std::filesystem::path other_ca;  // a CA that signed none of them
  Pair server;                     // subjectAltName IP:127.0.0.1, DNS:localhost
  Pair client;
  Pair expired_server;     // as `server`, but its validity ended a day ago
  Pair wrong_host_server;  // for DNS:elsewhere.example only
};

// Made on the first call; throws std::runtime_error with openssl's output when it fails.
const TlsFiles& tls_files();

// A server that speaks TLS only (redis-server --port 0 --tls-port P, etcd on https://): its
// certificate, the CA its clients' certificates must come from, and whether a client must show
// one.
struct ServerTls {
  TlsFiles::Pair identity;
  std::filesystem::path ca;
  bool client_certificates_required = false;

  // The test CA's server certificate for 127.0.0.1 and localhost (tls_files()).
  static ServerTls of_test_ca(bool client_certificates_required = false);
};

}  // namespace distlock::testing
