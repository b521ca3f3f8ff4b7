// SPDX-License-Identifier: Apache-2.0
// A fixture for suites whose tests share one server, started by the first test that needs it
// and stopped after the suite. A server that cannot start fails each test, naming it.
#pragma once

#include <exception>

#include <gtest/gtest.h>

namespace distlock::testing {

// `Suite`: a SuiteService (integration_helpers.h).
template <class Suite>
class SharedServerTest : public ::testing::Test {
 protected:
  using Server = typename Suite::Service;

  static void TearDownTestSuite() { suite_.stop(); }

  void SetUp() override {
    try {
      server_ = &suite_.get();
    } catch (const std::exception& e) {
      FAIL() << "cannot start " << Server::kName << ": " << e.what();
    }
  }

  static inline Suite suite_;
  Server* server_ = nullptr;
};

}  // namespace distlock::testing
