// SPDX-License-Identifier: Apache-2.0
#include "reservations.h"

#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <distlock/distlock.h>

namespace async_shop {

asio::awaitable<bool> Reservations::reserve(std::string sku, int quantity) {
  const int left = stock_.at(sku);
  if (left < quantity) co_return false;
  asio::steady_timer work(io_, work_time_);
  co_await work.async_wait(asio::use_awaitable);
  stock_[sku] = left - quantity;
  co_return true;
}

}  // namespace async_shop
