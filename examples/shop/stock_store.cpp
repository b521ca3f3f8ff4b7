// SPDX-License-Identifier: Apache-2.0
#include "stock_store.h"

#include <unistd.h>
#include <fstream>

namespace shop {

StockStore::StockStore(std::filesystem::path directory) : directory_(std::move(directory)) {
  std::filesystem::create_directories(directory_);
}

std::filesystem::path StockStore::path_of(const std::string& sku) const {
  return directory_ / (sku + ".stock");
}

void StockStore::create(const std::string& sku, int quantity) { write(sku, Row{quantity, 0}); }

int StockStore::quantity(const std::string& sku) const { return read(sku).quantity; }

void StockStore::update(const std::string& sku, int quantity, std::uint64_t fence) {
  const Row current = read(sku);
  if (fence != 0 && fence < current.fence)
    throw StaleWrite("stock of " + sku + ": write with fence " + std::to_string(fence) +
                     " refused, the store has seen fence " + std::to_string(current.fence));
  write(sku, Row{quantity, fence != 0 ? fence : current.fence});
}

StockStore::Row StockStore::read(const std::string& sku) const {
  std::ifstream in(path_of(sku));
  Row row;
  if (!(in >> row.quantity >> row.fence))
    throw std::runtime_error("cannot read the stock of " + sku + " from " + path_of(sku).string());
  return row;
}

// Through a temporary file and a rename, so a reader never sees half a row.
void StockStore::write(const std::string& sku, const Row& row) {
  const auto target = path_of(sku);
  auto temporary = target;
  temporary += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << row.quantity << ' ' << row.fence << '\n';
    if (!out) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::filesystem::rename(temporary, target);
}

}  // namespace shop
