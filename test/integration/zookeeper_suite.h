// SPDX-License-Identifier: Apache-2.0
// A fixture for suites whose tests share one ZooKeeper server, started by the first of them,
// each test with a raw client of its own to look at the nodes.
#pragma once

#include <memory>
#include <string>

#include <distlock/distlock.h>

#include "shared_server_test.h"
#include "zookeeper_client.h"
#include "zookeeper_helpers.h"
#include "zookeeper_server.h"

namespace distlock::testing {

class ZooKeeperSuiteTest : public SharedServerTest<SuiteZooKeeper> {
 protected:
  void SetUp() override {
    SharedServerTest::SetUp();
    if (HasFatalFailure()) return;
    raw_ = std::make_unique<ZooKeeperClient>(server_->connect_string());
  }

  ZooKeeperServer& server() { return *server_; }
  ZooKeeperClient& raw() { return *raw_; }
  // The suite's server with a short session timeout.
  std::string url() const { return with_session_timeout(server_->url()); }
  std::shared_ptr<Client> connect() const { return Client::connect(url()); }

 private:
  std::unique_ptr<ZooKeeperClient> raw_;
};

}  // namespace distlock::testing
