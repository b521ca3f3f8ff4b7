#include "orders.h"

int charge(const std::string& order, int amount) {
  // Holding "payment", takes "stock".
  return reserve_stock("sku-" + order, 1) + amount;
}

int refund(const std::string& order, int amount) {
  // The same lock again, by the same key: reentrant, no finding.
  return order.empty() ? 0 : charge(order, -amount);
}
