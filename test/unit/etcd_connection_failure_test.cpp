// SPDX-License-Identifier: Apache-2.0
// gRPC's reasons for a channel that could not connect, as etcd's callers read them
// (runtime/backends/etcd/connection_failure.h), from gRPC 1.51's own texts. The integration
// suite EtcdTls meets each against a real etcd; a reason that depends on timing (which of a
// read and a write meets the server's alert first) is pinned here.
#include "backends/etcd/connection_failure.h"

#include <gtest/gtest.h>

#include <string>

namespace distlock::detail::etcd {
namespace {

EtcdSettings over_tls(bool with_client_certificate) {
  EtcdSettings settings;
  settings.server = "etcds://127.0.0.1:2379";
  settings.tls.emplace();
  settings.tls->ca_file = "/ca.pem";
  if (with_client_certificate) {
    settings.tls->certificate_file = "/client.pem";
    settings.tls->key_file = "/client.key";
  }
  return settings;
}

std::string unreachable(const std::string& last_error) {
  return "failed to connect to all addresses; last error: " + last_error;
}

TEST(EtcdConnectionFailure, AnAlertAfterTheHandshakeMeansAClientCertificateEitherWayItIsMet) {
  for (const char* met_by : {"UNAVAILABLE: ipv4:127.0.0.1:2379: Endpoint read failed",
                             "UNAVAILABLE: ipv4:127.0.0.1:2379: Wrap failed"}) {
    const std::string none = connection_failure(over_tls(false), unreachable(met_by));
    EXPECT_NE(none.find("TLS: the server closed the connection after the handshake: it may "
                        "require a client certificate, and the URL gives none"),
              std::string::npos)
        << none;
    EXPECT_NE(none.find(met_by), std::string::npos) << "keeps gRPC's words: " << none;
    const std::string refused = connection_failure(over_tls(true), unreachable(met_by));
    EXPECT_NE(refused.find("it may have refused the client certificate"), std::string::npos)
        << refused;
  }
}

TEST(EtcdConnectionFailure, APlainServerClosingAPlainClientsConnectionIsNotCalledTls) {
  EtcdSettings plain;
  plain.server = "etcd://127.0.0.1:2379";
  const std::string reason =
      connection_failure(plain, unreachable("UNAVAILABLE: ipv4:127.0.0.1:2379: Socket closed"));
  EXPECT_EQ(
      reason.rfind("the server closed the connection: if it speaks TLS only, use etcds://", 0), 0u)
      << reason;
}

TEST(EtcdConnectionFailure, AReasonThatIsNoConnectionFailureIsLeftAsItIs) {
  EXPECT_EQ(connection_failure(over_tls(false), "etcdserver: request timed out"),
            "etcdserver: request timed out");
}

}  // namespace
}  // namespace distlock::detail::etcd
