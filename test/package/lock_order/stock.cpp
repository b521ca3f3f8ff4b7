#include "orders.h"

int reserve_stock(const std::string& sku, int n) { return static_cast<int>(sku.size()) * n; }

int restock(const std::string& sku, int count) {
#ifdef WITH_CYCLE
  // Holding "stock", takes "payment": the other order.
  refund("order-of-" + sku, count);
#endif
  // Another lock of the same type, under another key: a warning.
  return reserve_stock(sku + "-spare", count);
}
