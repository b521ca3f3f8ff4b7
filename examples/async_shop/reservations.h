// SPDX-License-Identifier: Apache-2.0
// Stock reservations as Asio coroutines: each reads an item's stock, works a little (pricing,
// payment: here a timer's wait, during which the thread runs other coroutines) and writes the
// stock back. Two coroutines reserving the same item at once would both read the same stock,
// and one reservation would be lost; the woven lock awaits its turn instead, without blocking
// the thread.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>

#include <chrono>
#include <map>
#include <string>

namespace async_shop {

class Reservations {
 public:
  Reservations(asio::io_context& io, std::chrono::microseconds work_time)
      : io_(io), work_time_(work_time) {}

  void stock(const std::string& sku, int quantity) { stock_[sku] = quantity; }
  int stock_of(const std::string& sku) const { return stock_.at(sku); }

  // Takes `quantity` of the item; false when not enough is left. One lock per SKU, held for at
  // most 5 s unless renewed; a coroutine waits up to 30 s for it, its thread free meanwhile.
  [[distlock::lock("stock", "5s", distlock::wait(std::chrono::seconds(30)))]]
  asio::awaitable<bool> reserve([[distlock::key]] std::string sku, int quantity);

 private:
  asio::io_context& io_;
  std::chrono::microseconds work_time_;
  std::map<std::string, int> stock_;
};

}  // namespace async_shop
