// A fixture for suites whose tests share one redis-server, started by the first of them.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

#include "integration_helpers.h"
#include "redis_server.h"

namespace distlock::testing {

class RedisSuiteTest : public ::testing::Test {
 protected:
  static void TearDownTestSuite() { redis_.stop(); }

  void SetUp() override {
    try {
      server_ = &redis_.get();
    } catch (const std::exception& e) {
      FAIL() << "cannot start redis-server: " << e.what();
    }
  }

  RedisServer& redis() { return *server_; }
  // `query`: "?command_timeout=300ms", say.
  std::shared_ptr<Client> connect(std::string_view query = "") {
    return Client::connect(server_->url() + std::string(query));
  }

  static inline SuiteRedis redis_;
  RedisServer* server_ = nullptr;
};

}  // namespace distlock::testing
