// SPDX-License-Identifier: Apache-2.0
// rediss://: locks over TLS against TLS-only redis-servers (test/support/tls_files.h makes the
// certificates), and each way a TLS connection can fail, told in words within connect_timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include <distlock/distlock.h>

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

  struct StartTlsServer {
    std::unique_ptr<RedisServer> operator()() const {
      return std::make_unique<RedisServer>(std::vector<std::string>{}, ServerTls::of_test_ca());
    }
  };
  static inline SuiteService<RedisServer, StartTlsServer> server_;
};

TEST_F(RedisTls, LocksOverTls) {
  auto client = Client::connect(with_ca(server(), tls_files().ca));
  const auto lock_spec = spec("tls", 10s);
  const std::string key = unique_name("locks-over-tls");
  Lease lease = client->acquire(lock_spec, key);
  EXPECT_TRUE(lease.valid());
  auto other = Client::connect(with_ca(server(), tls_files().ca));
  EXPECT_FALSE(other->try_acquire(lock_spec, key).has_value());
  lease.release();
  EXPECT_TRUE(other->try_acquire(lock_spec, key).has_value());
}

}  // namespace
}  // namespace distlock::testing
