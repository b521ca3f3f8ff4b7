// SPDX-License-Identifier: Apache-2.0
// What the code snippets of README.md and docs/*.md assume around them: the service's own
// types and variables they name (an order, a ledger, a store, a logger). Included before each
// snippet by check_snippets.py; the snippet's text is compiled as written.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include <distlock/distlock.h>

using namespace std::chrono_literals;

struct Money {
  long long cents = 0;
};
struct Order {
  std::string id;
};
struct Receipt {};
struct Entry {};
struct Record {};

struct Ledger {
  Entry debit(const std::string& account, Money amount);
  void reverse(const Entry& entry);
};
struct Store {
  void write(const Record& record, std::uint64_t fence);
};

inline Ledger ledger;
inline Store store;
inline Record record;
inline Order order;
inline std::string account;
inline Money amount;
inline std::string sku;
inline std::string user;
inline int order_id = 0;
inline std::string url;
inline std::string body;
inline std::shared_ptr<distlock::Client> locks;
inline constexpr auto s = distlock::spec("order", 30s);

void write_to_store(const Order& order, std::uint64_t fence);
void schedule_next(std::uint64_t epoch);
void my_log(distlock::LogLevel level, std::string_view message);
spdlog::level::level_enum spdlog_level(distlock::LogLevel level);
