// SPDX-License-Identifier: Apache-2.0
#include "inventory.h"

#include <thread>

#include <distlock/distlock.h>

namespace shop {

bool Inventory::reserve(const Item& item, int quantity) {
  const int in_stock = store_.quantity(item.sku);
  std::this_thread::sleep_for(work_time_);
  if (in_stock < quantity) return false;
  // Woven, this runs under the lock and the store checks its fence; built without
  // weaving there is no lease, and nothing stops a lost update.
  const distlock::Lease* lease = distlock::current();
  store_.update(item.sku, in_stock - quantity, lease != nullptr ? lease->fence() : 0);
  return true;
}

}  // namespace shop
