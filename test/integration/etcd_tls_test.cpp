// SPDX-License-Identifier: Apache-2.0
// etcds://: locks over TLS against private etcd servers that serve clients over https:// only
// (test/support/tls_files.h makes the certificates), mutual TLS, and each way a TLS connection
// fails, told as TLS and why, naming the server, within connect_timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include <distlock/admin.h>
#include <distlock/distlock.h>

#include "async_outcome.h"
#include "backend_servers.h"
#include "captured_log.h"
#include "connect_errors.h"
#include "etcd_server.h"
#include "integration_helpers.h"
#include "tls_files.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

std::string with_ca(const EtcdServer& server, const std::filesystem::path& ca) {
  return server.url() + "?cacert=" + ca.string();
}

std::string with_client_certificate(const std::string& url) {
  return url + "&cert=" + tls_files().client.certificate.string() +
         "&key=" + tls_files().client.key.string();
}

struct StartMutualTlsEtcd {
  std::unique_ptr<EtcdServer> operator()() const {
    EtcdConfig config;
    config.tls = ServerTls::of_test_ca(/*client_certificates_required=*/true);
    return std::make_unique<EtcdServer>(config);
  }
};

class EtcdTls : public ::testing::Test {
 protected:
  static void TearDownTestSuite() {
    server_.stop();
    mutual_.stop();
    plain_.stop();
  }

  static EtcdServer& server() { return server_.get(); }
  static EtcdServer& mutual() { return mutual_.get(); }
  static EtcdServer& plain() { return plain_.get(); }

  static inline SuiteService<EtcdServer, StartTlsEtcd> server_;
  static inline SuiteService<EtcdServer, StartMutualTlsEtcd> mutual_;
  static inline SuiteService<EtcdServer> plain_;
};

// The reason a connection to `url` is refused with (connect_errors.h).
std::string etcd_unavailable_reason(const std::string& url) {
  return unavailable_reason(url, "connect_timeout=2s");
}

TEST_F(EtcdTls, LocksOverTls) {
  const CapturedLog log(LogLevel::warning);
  auto client = Client::connect(with_ca(server(), tls_files().ca) + "&insecure=false");
  const auto lock_spec = spec("tls", 10s);
  const std::string key = unique_name("locks-over-tls");
  Lease lease = client->acquire(lock_spec, key);
  EXPECT_TRUE(lease.valid());
  // The lock is the server's: etcdctl, over TLS too, sees the holder's key.
  EXPECT_NE(server().etcdctl({"get", "--prefix", "--keys-only", "/distlock/tls/" + key + "/"}), "");
  auto other = Client::connect(with_ca(server(), tls_files().ca));
  EXPECT_FALSE(other->try_acquire(lock_spec, key).has_value());
  lease.release();
  EXPECT_TRUE(other->try_acquire(lock_spec, key).has_value());
  EXPECT_TRUE(log.lines_at(LogLevel::warning).empty()) << "verified, yet warned";
}

// The contenders queued for a lock: each has a key under its prefix.
std::size_t contenders(const EtcdServer& server, const std::string& prefix) {
  const std::string keys = server.etcdctl({"get", "--prefix", "--keys-only", prefix});
  std::size_t count = 0;
  for (auto at = keys.find(prefix); at != std::string::npos; at = keys.find(prefix, at + 1))
    ++count;
  return count;
}

// A waiter is woken by the release through its watch stream, which is TLS too: a blocking one
// and an asynchronous one, in arrival order (etcd's Mutex is fair).
TEST_F(EtcdTls, WaitersAreWokenOverTls) {
  auto holder = Client::connect(with_ca(server(), tls_files().ca));
  auto waiter = Client::connect(with_ca(server(), tls_files().ca));
  const auto lock_spec = spec("tls", 10s, wait(20s));
  const std::string key = unique_name("waiters");
  const std::string prefix = "/distlock/tls/" + key + "/";
  Lease held = holder->acquire(lock_spec, key);
  std::promise<Lease> granted;
  std::thread blocking([&] {
    try {
      granted.set_value(waiter->acquire(lock_spec, key));
    } catch (...) {
      granted.set_exception(std::current_exception());
    }
  });
  // The blocking waiter is queued before the asynchronous one starts.
  ASSERT_TRUE(eventually([&] { return contenders(server(), prefix) == 2; }));
  auto asynchronous = start_acquisition(*holder, lock_spec, key);
  ASSERT_TRUE(eventually([&] { return contenders(server(), prefix) == 3; }));
  const std::uint64_t first = held.fence();
  held.release();
  auto blocking_lease = granted.get_future();
  ASSERT_EQ(blocking_lease.wait_for(20s), std::future_status::ready) << "the waiter hangs";
  Lease second = blocking_lease.get();
  blocking.join();
  EXPECT_GT(second.fence(), first);
  EXPECT_EQ(asynchronous.wait_for(0s), std::future_status::timeout)
      << "granted while the blocking waiter holds the lock";
  const std::uint64_t second_fence = second.fence();
  second.release();
  Outcome outcome = outcome_of(asynchronous);
  ASSERT_FALSE(outcome.error) << error_of_type<Error>(outcome);
  EXPECT_GT(outcome.lease.fence(), second_fence);
}

// The admin API (the distlock command) takes the service's etcds:// URL as it is.
TEST_F(EtcdTls, TheAdminApiListsLocksOverTls) {
  const std::string url = with_client_certificate(with_ca(mutual(), tls_files().ca));
  auto client = Client::connect(url);
  const std::string key = unique_name("admin");
  Lease lease = client->acquire(spec("tls-admin", 10s), key);
  const auto admin = admin::LockAdmin::connect(url);
  const auto locks = admin->list("tls-admin:" + key);
  ASSERT_EQ(locks.size(), 1u);
  ASSERT_EQ(locks.front().holds.size(), 1u);
  EXPECT_EQ(locks.front().holds.front().fence, lease.fence());
  try {
    (void)admin::LockAdmin::connect(with_ca(mutual(), tls_files().ca) + "&connect_timeout=2s");
    ADD_FAILURE() << "the admin API connected without the client certificate";
  } catch (const BackendUnavailable& error) {
    EXPECT_NE(std::string(error.what()).find("it may require a client certificate"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(EtcdTls, AnUnknownCaFailsSayingTlsAndWhy) {
  const std::string reason = etcd_unavailable_reason(with_ca(server(), tls_files().other_ca));
  EXPECT_NE(reason.find("TLS: certificate verify failed: no CA of cacert"), std::string::npos)
      << reason;
  EXPECT_NE(reason.find(server().url()), std::string::npos) << "names the server: " << reason;
}

TEST_F(EtcdTls, WithoutCacertTheSystemStoreIsUsedAndDoesNotKnowTheTestCa) {
  const std::string reason = etcd_unavailable_reason(server().url());
  EXPECT_NE(reason.find("TLS: certificate verify failed: no CA of the system's store"),
            std::string::npos)
      << reason;
}

TEST_F(EtcdTls, SniNamesTheHostTheCertificateIsCheckedFor) {
  // The certificate is for 127.0.0.1 and localhost: localhost passes, another name does not.
  auto client = Client::connect(with_ca(server(), tls_files().ca) + "&sni=localhost");
  EXPECT_TRUE(client->try_acquire(spec("tls", 10s), unique_name("sni")).has_value());
  const std::string reason =
      etcd_unavailable_reason(with_ca(server(), tls_files().ca) + "&sni=elsewhere.example");
  EXPECT_NE(reason.find("TLS: host name mismatch: the server's certificate is not for "
                        "elsewhere.example"),
            std::string::npos)
      << reason;
}

TEST_F(EtcdTls, InsecureSkipsVerificationAndWarns) {
  const CapturedLog log(LogLevel::warning);
  auto client = Client::connect(server().url() + "?insecure=true");
  EXPECT_TRUE(client->try_acquire(spec("tls", 10s), unique_name("insecure")).has_value());
  const auto warnings = log.lines_at(LogLevel::warning);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings.front().find("insecure=true: the server's certificate is not verified"),
            std::string::npos)
      << warnings.front();
}

TEST_F(EtcdTls, AServerThatRequiresAClientCertificateGetsTheOneTheUrlGives) {
  const std::string reason = etcd_unavailable_reason(with_ca(mutual(), tls_files().ca));
  EXPECT_NE(reason.find("TLS: "), std::string::npos) << reason;
  EXPECT_NE(reason.find("it may require a client certificate, and the URL gives none"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find(mutual().url()), std::string::npos) << reason;
  auto client = Client::connect(with_client_certificate(with_ca(mutual(), tls_files().ca)));
  EXPECT_TRUE(client->try_acquire(spec("tls", 10s), unique_name("client-cert")).has_value());
}

// The unverified credentials are gRPC's experimental TLS ones, which carry the client's
// certificate their own way.
TEST_F(EtcdTls, InsecureStillShowsTheClientCertificate) {
  auto client = Client::connect(with_client_certificate(mutual().url() + "?insecure=true"));
  EXPECT_TRUE(client->try_acquire(spec("tls", 10s), unique_name("insecure-mutual")).has_value());
}

TEST_F(EtcdTls, CacertdirTrustsTheCasOfTheDirectory) {
  auto client = Client::connect(server().url() + "?cacertdir=" + tls_files().directory.string());
  EXPECT_TRUE(client->try_acquire(spec("tls", 10s), unique_name("cacertdir")).has_value());
  const TempDirectory others;
  std::filesystem::copy_file(tls_files().other_ca, others.path() / "other-ca.crt");
  const std::string reason =
      etcd_unavailable_reason(server().url() + "?cacertdir=" + others.path().string());
  EXPECT_NE(reason.find("TLS: certificate verify failed"), std::string::npos) << reason;
}

// gRPC takes the files' text and says only that it has no address to connect to.
TEST_F(EtcdTls, AKeyThatDoesNotMatchItsCertificateFailsNamingBoth) {
  const std::string reason = etcd_unavailable_reason(
      with_ca(mutual(), tls_files().ca) + "&cert=" + tls_files().client.certificate.string() +
      "&key=" + tls_files().server.key.string());
  EXPECT_NE(reason.find("TLS: gRPC could not set up TLS from the URL's files: is key '" +
                        tls_files().server.key.string() + "' the key of cert '" +
                        tls_files().client.certificate.string() + "'?"),
            std::string::npos)
      << reason;
}

TEST_F(EtcdTls, PlainEtcdToATlsServerSaysTheServerSpeaksTls) {
  const std::string url = "etcd://" + server().endpoint();
  const std::string reason = etcd_unavailable_reason(url);
  EXPECT_NE(reason.find(url), std::string::npos) << reason;
  EXPECT_NE(reason.find("if it speaks TLS only, use etcds://"), std::string::npos) << reason;
}

TEST_F(EtcdTls, EtcdsToAPlainServerSaysItDoesNotSpeakTls) {
  const std::string url = "etcds://" + plain().endpoint() + "?cacert=" + tls_files().ca.string();
  const std::string reason = etcd_unavailable_reason(url);
  EXPECT_NE(reason.find("TLS: the server closed the connection during the handshake"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find("use etcd:// for a plain one"), std::string::npos) << reason;
}

TEST_F(EtcdTls, AFileThatCannotBeReadIsAConfigErrorNamingItAndNoPassword) {
  const std::string url =
      "etcds://root:tls-secret@" + server().endpoint() + "?cacert=/nonexistent/ca.pem";
  const std::string message = config_error_of(url);
  EXPECT_NE(message.find("cannot read cacert '/nonexistent/ca.pem'"), std::string::npos) << message;
  EXPECT_NE(message.find("etcds://***@127.0.0.1:"), std::string::npos) << message;
  EXPECT_EQ(message.find("tls-secret"), std::string::npos) << message;
}

TEST_F(EtcdTls, ACertificateWithoutItsKeyIsAConfigError) {
  const std::string message = config_error_of(with_ca(server(), tls_files().ca) +
                                              "&cert=" + tls_files().client.certificate.string());
  EXPECT_NE(message.find("cert= without key="), std::string::npos) << message;
}

TEST_F(EtcdTls, AKeyThatIsNotAKeyIsAConfigErrorNamingIt) {
  const std::string message = config_error_of(with_ca(server(), tls_files().ca) +
                                              "&cert=" + tls_files().client.certificate.string() +
                                              "&key=" + tls_files().client.certificate.string());
  EXPECT_NE(message.find("key '" + tls_files().client.certificate.string() +
                         "' holds no PEM private key"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace distlock::testing
