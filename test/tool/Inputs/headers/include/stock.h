#pragma once
#include <string>

struct Item { std::string sku; };

[[distlock::lock("stock", "5s")]]
inline int reserve([[distlock::key("sku")]] const Item& item, int count) {
  return count;
}

template <class Id>
[[distlock::lock("release", 1000)]] Id release([[distlock::key]] Id id) {
  return id;
}
