// SPDX-License-Identifier: Apache-2.0
// A fixture for suites whose tests share one redis-server, started by the first of them.
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
  RedisServer& redis() { return *server_; }
  // `query`: "?command_timeout=300ms", say.
  std::shared_ptr<Client> connect(std::string_view query = "") {
    return Client::connect(server_->url() + std::string(query));
  }
};

}  // namespace distlock::testing
