// SPDX-License-Identifier: Apache-2.0
// The shop's stock: one small file per SKU holding "<quantity> <fence>". A stand-in for a
// database row that several service processes read and write.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace shop {

// A write carrying a fence lower than one the store already accepted: the writer's lock
// ran out and someone else has held it since.
class StaleWrite : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class StockStore {
 public:
  explicit StockStore(std::filesystem::path directory);

  void create(const std::string& sku, int quantity);
  int quantity(const std::string& sku) const;
  // Replaces the quantity. A non-zero fence lower than the last accepted one is refused
  // with StaleWrite; fence 0 means "no lock" and is never checked.
  void update(const std::string& sku, int quantity, std::uint64_t fence);

 private:
  struct Row {
    int quantity = 0;
    std::uint64_t fence = 0;
  };
  Row read(const std::string& sku) const;
  void write(const std::string& sku, const Row& row);
  std::filesystem::path path_of(const std::string& sku) const;

  std::filesystem::path directory_;
};

}  // namespace shop
