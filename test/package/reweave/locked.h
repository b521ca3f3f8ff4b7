// SPDX-License-Identifier: Apache-2.0
#pragma once
[[distlock::lock("account", 1000)]] inline int balance([[distlock::key]] int account) {
  return account;
}
