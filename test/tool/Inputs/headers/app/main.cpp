#include "catalog.h"
#include <cstdio>

int main() {
  std::printf("reserved %d, released %d\n", reserve(Item{"sku-1"}, 3), release(4));
  return 0;
}
