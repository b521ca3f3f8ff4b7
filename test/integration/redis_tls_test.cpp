// SPDX-License-Identifier: Apache-2.0
// rediss://: locks over TLS against TLS-only redis-servers (test/support/tls_files.h makes the
// certificates), and each way a TLS connection can fail, told in words within connect_timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <distlock/distlock.h>

#include "captured_log.h"
#include "connect_errors.h"
#include "integration_helpers.h"
#include "redis_server.h"
#include "tls_files.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

std::string with_ca(const RedisServer& server, const std::filesystem::path& ca) {
  return server.url() + "?cacert=" + ca.string();
}

class RedisTls : public ::testing::Test {
 protected:
  static void TearDownTestSuite() { server_.stop(); }

  static RedisServer& server() { return server_.get(); }

  static inline SuiteTlsRedis server_;
};

TEST_F(RedisTls, LocksOverTls) {
  const CapturedLog log(LogLevel::warning);
  auto client = Client::connect(with_ca(server(), tls_files().ca) + "&insecure=false");
  const auto lock_spec = spec("tls", 10s);
  const std::string key = unique_name("locks-over-tls");
  Lease lease = client->acquire(lock_spec, key);
  EXPECT_TRUE(lease.valid());
  auto other = Client::connect(with_ca(server(), tls_files().ca));
  EXPECT_FALSE(other->try_acquire(lock_spec, key).has_value());
  lease.release();
  EXPECT_TRUE(other->try_acquire(lock_spec, key).has_value());
  EXPECT_TRUE(log.lines_at(LogLevel::warning).empty()) << "verified, yet warned";
}

// The reason a connection to `url` is refused with (connect_errors.h).
std::string redis_unavailable_reason(const std::string& url) {
  return unavailable_reason(url, "connect_timeout=2s&outage_limit=0s");
}

RedisServer tls_server(const TlsFiles::Pair& identity, bool client_certificates_required = false) {
  return RedisServer({}, ServerTls{identity, tls_files().ca, client_certificates_required});
}

TEST_F(RedisTls, AnUnknownCaFailsTheHandshake) {
  const std::string reason = redis_unavailable_reason(with_ca(server(), tls_files().other_ca));
  // "unable to get local issuer certificate" when the server sends its certificate alone,
  // "self-signed certificate in certificate chain" when it sends its CA's too, as Redis does.
  EXPECT_NE(reason.find("certificate verify failed: "), std::string::npos) << reason;
  EXPECT_NE(reason.find("(unknown CA"), std::string::npos) << reason;
  EXPECT_NE(reason.find(server().url()), std::string::npos) << "names the server: " << reason;
}

TEST_F(RedisTls, WithoutCacertTheSystemStoreIsUsedAndDoesNotKnowTheTestCa) {
  const std::string reason = redis_unavailable_reason(server().url());
  EXPECT_NE(reason.find("(unknown CA"), std::string::npos) << reason;
}

TEST_F(RedisTls, ACertificateForAnotherHostFailsUnlessSniNamesThatHost) {
  const RedisServer elsewhere = tls_server(tls_files().wrong_host_server);
  const std::string reason = redis_unavailable_reason(with_ca(elsewhere, tls_files().ca));
  EXPECT_NE(reason.find("certificate verify failed: host name mismatch"), std::string::npos)
      << reason;
  EXPECT_NE(reason.find("127.0.0.1"), std::string::npos) << reason;
  auto client = Client::connect(with_ca(elsewhere, tls_files().ca) + "&sni=elsewhere.example");
  EXPECT_TRUE(client->try_acquire(spec("tls", 10s), unique_name("sni")).has_value());
}

TEST_F(RedisTls, ServerCertificateIsCheckedForLocalhostByName) {
  const std::string url = "rediss://localhost:" + std::to_string(server().port()) +
                          "?cacert=" + tls_files().ca.string();
  auto client = Client::connect(url);
  EXPECT_TRUE(client->try_acquire(spec("tls", 10s), unique_name("by-name")).has_value());
}

TEST_F(RedisTls, AnExpiredCertificateFailsTheHandshake) {
  const RedisServer expired = tls_server(tls_files().expired_server);
  const std::string reason = redis_unavailable_reason(with_ca(expired, tls_files().ca));
  EXPECT_NE(reason.find("certificate verify failed: certificate has expired"), std::string::npos)
      << reason;
}

TEST_F(RedisTls, InsecureSkipsVerificationAndWarns) {
  const RedisServer expired = tls_server(tls_files().expired_server);
  const CapturedLog log(LogLevel::warning);
  auto client = Client::connect(expired.url() + "?insecure=true");
  EXPECT_TRUE(client->try_acquire(spec("tls", 10s), unique_name("insecure")).has_value());
  const auto warnings = log.lines_at(LogLevel::warning);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings.front().find("insecure=true: the server's certificate is not verified"),
            std::string::npos)
      << warnings.front();
}

// insecure=true keeps OpenSSL's verdict on the certificate, which failed nothing: a later
// failure is told for what it is.
TEST_F(RedisTls, WithoutVerificationAFailureIsNotBlamedOnTheCertificate) {
  const RedisServer strict_and_expired = tls_server(tls_files().expired_server, true);
  const std::string reason = redis_unavailable_reason(strict_and_expired.url() + "?insecure=true");
  EXPECT_NE(reason.find("the server asked for a client certificate"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("expired"), std::string::npos) << reason;
}

TEST_F(RedisTls, AServerThatAsksForAClientCertificateGetsTheOneTheUrlGives) {
  const RedisServer strict = tls_server(tls_files().server, true);
  const std::string reason = redis_unavailable_reason(with_ca(strict, tls_files().ca));
  EXPECT_NE(reason.find("the server asked for a client certificate"), std::string::npos) << reason;
  auto client = Client::connect(with_ca(strict, tls_files().ca) +
                                "&cert=" + tls_files().client.certificate.string() +
                                "&key=" + tls_files().client.key.string());
  EXPECT_TRUE(client->try_acquire(spec("tls", 10s), unique_name("client-cert")).has_value());
}

TEST_F(RedisTls, AClientCertificateTheServerDoesNotTrustIsRefusedSayingSo) {
  // The server takes client certificates of the second CA only.
  const RedisServer distrusting({}, ServerTls{tls_files().server, tls_files().other_ca,
                                              /*client_certificates_required=*/true});
  const std::string reason = redis_unavailable_reason(
      with_ca(distrusting, tls_files().ca) + "&cert=" + tls_files().client.certificate.string() +
      "&key=" + tls_files().client.key.string());
  EXPECT_NE(reason.find("the server refused the client certificate"), std::string::npos) << reason;
}

TEST_F(RedisTls, RedissToAPlainPortSaysTheServerDoesNotSpeakTls) {
  const RedisServer plain;
  const std::string port = std::to_string(plain.port());
  const std::string reason =
      redis_unavailable_reason("rediss://127.0.0.1:" + port + "?cacert=" + tls_files().ca.string());
  EXPECT_NE(reason.find("speak TLS on this port"), std::string::npos) << reason;
}

TEST_F(RedisTls, PlainRedisToATlsPortFailsWithinConnectTimeout) {
  const std::string url = "redis://127.0.0.1:" + std::to_string(server().port());
  const std::string reason = redis_unavailable_reason(url);
  EXPECT_NE(reason.find(url), std::string::npos) << reason;
}

TEST_F(RedisTls, AFileThatCannotBeReadIsAConfigErrorNamingItAndNoPassword) {
  const std::string url = "rediss://:tls-secret@127.0.0.1:" + std::to_string(server().port()) +
                          "?cacert=/nonexistent/ca.pem";
  const std::string message = config_error_of(url);
  EXPECT_NE(message.find("cannot read cacert '/nonexistent/ca.pem'"), std::string::npos) << message;
  EXPECT_NE(message.find("rediss://***@127.0.0.1:"), std::string::npos) << message;
  EXPECT_EQ(message.find("tls-secret"), std::string::npos) << message;
}

TEST_F(RedisTls, AKeyThatDoesNotMatchItsCertificateIsAConfigError) {
  const std::string url = with_ca(server(), tls_files().ca) +
                          "&cert=" + tls_files().client.certificate.string() +
                          "&key=" + tls_files().server.key.string();
  const std::string message = config_error_of(url);
  EXPECT_NE(message.find("key '" + tls_files().server.key.string() + "' does not match cert '" +
                         tls_files().client.certificate.string() + "'"),
            std::string::npos)
      << message;
}

TEST_F(RedisTls, ACertificateWithoutItsKeyIsAConfigError) {
  const std::string message = config_error_of(with_ca(server(), tls_files().ca) +
                                              "&cert=" + tls_files().client.certificate.string());
  EXPECT_NE(message.find("cert= without key="), std::string::npos) << message;
}

TEST_F(RedisTls, RedissUnixIsRefused) {
  const std::string message = config_error_of("rediss+unix:///run/redis.sock");
  EXPECT_NE(message.find("rediss+unix:// does not exist"), std::string::npos) << message;
}

// A Cluster whose nodes speak TLS only, to clients and on the bus: its redirections are
// followed over TLS, each node verified by the address the cluster announces for it.
class RedisTlsCluster : public ::testing::Test {
 protected:
  static void TearDownTestSuite() { cluster_.stop(); }

  static RedisCluster& cluster() { return cluster_.get(); }
  static std::string url() { return with_test_ca(cluster().url()); }

  // A master other than the one serving `slot`.
  static RedisServer& another_master(int slot) {
    RedisServer& current = cluster().master_of(slot);
    for (int candidate = 0; candidate < 16384; candidate += 1000) {
      RedisServer& master = cluster().master_of(candidate);
      if (&master != &current) return master;
    }
    throw std::runtime_error("one master serves every slot");
  }

  static inline SuiteTlsRedisCluster cluster_;
};

TEST_F(RedisTlsCluster, AMovedSlotIsFollowedOverTls) {
  auto client = Client::connect(url());
  const std::string hash = "distlock:{tls-moving:a}";
  const int slot = cluster().key_slot(hash);
  std::uint64_t before = 0;
  {
    Lease lease = client->acquire(spec("tls-moving", 10s), key_of("a"));
    before = lease.fence();
  }
  RedisServer& target = another_master(slot);
  cluster().move_slot(slot, target);
  // The client's map still names the old master: its MOVED reply is followed.
  Lease lease = client->acquire(spec("tls-moving", 10s, wait(5s)), key_of("a"));
  EXPECT_GT(lease.fence(), before);
  EXPECT_EQ(target.cli({"HGET", hash, "id"}), lease.id());
}

// Between MIGRATE and the handover the old master answers ASK: the release goes to the
// importing master, over TLS too.
TEST_F(RedisTlsCluster, AReleaseAskedElsewhereWhileItsSlotMigratesReachesTheImportingMaster) {
  auto holder = Client::connect(url());
  auto taker = Client::connect(url());
  const std::string hash = "distlock:{tls-migrating:a}";
  const int slot = cluster().key_slot(hash);
  Lease held = holder->acquire(spec("tls-migrating", 10s), key_of("a"));
  const auto fence = held.fence();

  std::promise<std::uint64_t> taken;
  std::thread taking;
  RedisServer& target = another_master(slot);
  cluster().move_slot(slot, target, [&] {
    EXPECT_NO_THROW(held.release()) << "the release did not reach the importing master";
    taking = std::thread([&] {
      try {
        taken.set_value(taker->acquire(spec("tls-migrating", 10s, wait(30s)), key_of("a")).fence());
      } catch (...) {
        taken.set_exception(std::current_exception());
      }
    });
  });
  auto result = taken.get_future();
  ASSERT_EQ(result.wait_for(30s), std::future_status::ready) << "the taker hangs";
  EXPECT_GT(result.get(), fence);
  taking.join();
}

}  // namespace
}  // namespace distlock::testing
