// SPDX-License-Identifier: Apache-2.0
// What Client::connect throws for a URL that must not connect: the TLS suites' checks of
// their refusals.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include <distlock/distlock.h>

#include "util/sanitizer.h"

namespace distlock::testing {

// The margin past connect_timeout for the server's side and a slow machine: under a sanitizer a
// TLS handshake beside the rest of the suite has taken 1.9 s more.
#if defined(DISTLOCK_THREAD_SANITIZER) || defined(DISTLOCK_ADDRESS_SANITIZER)
inline constexpr std::chrono::milliseconds kConnectMargin{4000};
#else
inline constexpr std::chrono::milliseconds kConnectMargin{1500};
#endif

// The reason Client::connect gives for `url` with `options` added to its query (which hold
// connect_timeout=2s), which must fail with BackendUnavailable within connect_timeout and the
// margin, not hang.
inline std::string unavailable_reason(const std::string& url, const std::string& options) {
  using namespace std::chrono_literals;
  const auto started = std::chrono::steady_clock::now();
  try {
    (void)Client::connect(url + (url.find('?') == std::string::npos ? "?" : "&") + options);
  } catch (const BackendUnavailable& error) {
    EXPECT_LT(std::chrono::steady_clock::now() - started, 2s + kConnectMargin)
        << "not within connect_timeout: " << error.what();
    return error.what();
  }
  ADD_FAILURE() << "connected to " << url;
  return {};
}

// The message of the ConfigError Client::connect throws for `url`.
inline std::string config_error_of(const std::string& url) {
  try {
    (void)Client::connect(url);
  } catch (const ConfigError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no ConfigError for " << url;
  return {};
}

}  // namespace distlock::testing
