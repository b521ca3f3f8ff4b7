// SPDX-License-Identifier: Apache-2.0
// Stock reservations: what the distributed lock protects. Each reservation reads the stock
// of one item, works a little (pricing, payment: here a short pause) and writes it back.
// Without a lock, two processes reserving the same item at once both read the same stock,
// and one of the two reservations is lost.
#pragma once

#include <chrono>
#include <string>

#include "stock_store.h"

namespace shop {

struct Item {
  std::string sku;
};

class Inventory {
 public:
  Inventory(StockStore& store, std::chrono::microseconds work_time)
      : store_(store), work_time_(work_time) {}

  // Takes `quantity` of the item; false when not enough is left. One lock per SKU, held
  // for at most 5 s unless renewed; a caller waits up to 30 s for it.
  [[distlock::lock("stock", "5s", distlock::wait(std::chrono::seconds(30)))]]
  bool reserve([[distlock::key("sku")]] const Item& item, int quantity);

 private:
  StockStore& store_;
  std::chrono::microseconds work_time_;
};

}  // namespace shop
