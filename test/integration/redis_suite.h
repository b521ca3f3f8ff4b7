// SPDX-License-Identifier: Apache-2.0
// A fixture for suites whose tests share one redis-server, started by the first of them and
// emptied before each test: the suites' tests run in one process (one ctest test per suite),
// and some use fixed keys ("distlock:{order:42}") that an earlier test may have left behind.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <distlock/distlock.h>

#include "integration_helpers.h"
#include "redis_server.h"
#include "shared_server_test.h"

namespace distlock::testing {

class RedisSuiteTest : public SharedServerTest<SuiteRedis> {
 protected:
  void SetUp() override {
    SharedServerTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_EQ(server_->cli({"FLUSHALL"}), "OK");
  }

  RedisServer& redis() { return *server_; }
  // `query`: "?command_timeout=300ms", say.
  std::shared_ptr<Client> connect(std::string_view query = "") {
    return Client::connect(server_->url() + std::string(query));
  }
};

}  // namespace distlock::testing
